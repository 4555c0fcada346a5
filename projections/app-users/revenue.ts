import { sql, type DatabaseTransactionConnection } from "slonik";
import type { UserRevenueSynced } from "../../domain/identity/events.ts";
import { createRecord } from "./claim.ts";
import { claimerOf, recordOf } from "./records.ts";

/**
 * Applies a revenue figure to the user's record. A figure for an id claimed by then is not applied
 * and recorded as superseded, as a property change is (properties.ts): the API located the user
 * before the claim and decides again on the claimer. A user not known yet is created, linked to
 * the fact's app, as a property change creates one (the backfill of provider customers).
 */
export async function applyRevenue(tx: DatabaseTransactionConnection, fact: UserRevenueSynced, seq: number): Promise<void> {
  const { project_id: projectId, user_id: userId } = fact;
  if ((await claimerOf(tx, projectId, userId)) !== null) {
    await tx.query(sql.unsafe`insert into identity_superseded (fact_id, seq, reason) values (${fact.id}, ${seq}, 'user was claimed') on conflict do nothing`);
    return;
  }
  const record = await recordOf(tx, projectId, userId, true);
  if (!record) await createRecord(tx, { projectId, userId, appId: fact.app_id, at: fact.at, claimedFrom: null, mergedAtSeq: 0 });
  await tx.query(sql.unsafe`
    update app_users set lifetime_revenue_usd_cents = ${fact.lifetime_revenue_usd_cents}, revenue_synced_at = ${fact.synced_at}
     where project_id = ${projectId} and user_id = ${userId}`);
}
