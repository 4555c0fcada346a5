import { sql, type DatabaseTransactionConnection } from "slonik";
import type { UserPropertiesChanged } from "../../domain/identity/events.ts";
import { applyPatch, MAX_PROPERTIES } from "../../domain/identity/properties.ts";
import { createRecord } from "./claim.ts";
import { claimerOf, recordOf } from "./records.ts";

/**
 * Applies a property change unless the user changed under the decision: the user was claimed
 * (its record is gone), or a claim merged another record into it after the decision read it.
 * Optimistic concurrency on the user's subject already orders changes of one user; these two
 * cases come from claims, which are appended on the anonymous id's subject. A superseded fact
 * changes nothing and is recorded, so the API that appended it decides again. The outcome only
 * depends on facts before it in the stream, so a replay supersedes exactly the same facts.
 */
export async function applyProperties(tx: DatabaseTransactionConnection, change: UserPropertiesChanged, seq: number): Promise<void> {
  const { project_id: projectId, user_id: userId } = change;
  const superseded = (reason: string) =>
    tx.query(sql.unsafe`insert into identity_superseded (fact_id, seq, reason) values (${change.id}, ${seq}, ${reason}) on conflict do nothing`);
  if ((await claimerOf(tx, projectId, userId)) !== null) return void (await superseded("user was claimed"));
  const record = await recordOf(tx, projectId, userId, true);
  if ((record?.merged_at_seq ?? 0) !== change.merged_at_seq) return void (await superseded("a claim merged into the user"));
  const properties = applyPatch(record?.properties ?? {}, change);
  // Unreachable while the API decides under optimistic concurrency; kept so no fact can ever
  // store more than the limit.
  if (Object.keys(properties).length > MAX_PROPERTIES) return void (await superseded("more than 50 properties"));
  if (record) {
    await tx.query(sql.unsafe`update app_users set properties = ${sql.jsonb(properties)} where id = ${record.id}`);
  } else {
    await createRecord(tx, { projectId, userId, appId: change.app_id, at: change.at, claimedFrom: null, mergedAtSeq: 0, properties });
  }
}
