import { sql, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import type { FunnelEventRow } from "../../domain/funnels/derive.ts";
import type { Reassignment } from "../_runtime/reassign.ts";
import type { ImportKey } from "../derived-events/plan.ts";
import { insertDeduped, replaceByKeys, type DerivedTable } from "../derived-events/write.ts";
import { keyedRows, userKey } from "./keys.ts";

const FUNNEL_EVENTS: DerivedTable = {
  name: "funnel_events",
  dedup: "funnel_event_dedup",
  columns: [
    "project_id", "app_id", "timestamp", "user_key", "step_key", "is_dev", "environment", "app_version", "screen_key", "id",
    "client_event_id", "received_at",
  ],
  record: sql.fragment`
    project_id uuid, app_id uuid, "timestamp" timestamptz, user_key int, step_key int, is_dev boolean, environment text,
    app_version text, screen_key int, id uuid, client_event_id uuid, received_at timestamptz`,
};

/** Writes ingested funnel events, skipping duplicates (insertDeduped). */
export async function insertFunnelEvents(tx: DatabaseTransactionConnection, rows: readonly FunnelEventRow[]): Promise<void> {
  await insertDeduped(tx, FUNNEL_EVENTS, await keyedRows(tx, rows));
}

/** Applies imported funnel events (replaceByKeys). */
export async function replaceFunnelEvents(tx: DatabaseTransactionConnection, keys: readonly ImportKey[], rows: readonly FunnelEventRow[]): Promise<void> {
  await replaceByKeys(tx, FUNNEL_EVENTS, keys, await keyedRows(tx, rows));
}

/**
 * Moves the funnel events of the claim's anonymous id, in any app of the project, to the claiming
 * user's key (reassignUser for a table keyed by user number). An anonymous id without a key has
 * no funnel events, and the claiming user is not numbered for nothing. Harmless to repeat.
 */
export async function reassignFunnelEvents(tx: DatabaseTransactionConnection, claim: Reassignment): Promise<void> {
  if (claim.app_ids.length === 0) return;
  const from = await tx.maybeOneFirst(sql.type(z.object({ user_key: z.number() }))`
    select user_key from funnel_users where user_id = ${claim.anonymous_id}`);
  if (from === null) return;
  await tx.query(sql.unsafe`
    update funnel_events set user_key = ${await userKey(tx, claim.user_id)}
     where app_id = any(${sql.array(claim.app_ids, "uuid")}) and user_key = ${from}`);
}
