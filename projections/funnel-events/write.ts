import { sql, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import type { FunnelEventRow } from "../../domain/funnels/derive.ts";
import type { Reassignment } from "../_runtime/reassign.ts";
import type { ImportKey } from "../derived-events/plan.ts";
import { insertDeduped, replaceByKeys, type DerivedTable } from "../derived-events/write.ts";
import { keyedRows, userKey, type KeyedFunnelRow } from "./keys.ts";
import { ensureKinds, lockAlone, mergeFreshIntoUserDays, refreshUserDays, userDayRow, type UserDay } from "./summary-write.ts";

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

/**
 * Writes ingested funnel events, skipping duplicates (insertDeduped), and merges the events
 * written into their users' step summaries in the same statement.
 */
export async function insertFunnelEvents(tx: DatabaseTransactionConnection, rows: readonly FunnelEventRow[]): Promise<void> {
  const keyed = await keyedRows(tx, rows);
  if (keyed.length === 0) return;
  await lockAlone(tx);
  await insertDeduped(tx, FUNNEL_EVENTS, keyed, mergeFreshIntoUserDays);
}

/** The (app, user, day) of rows, as their summaries are keyed. */
const daysOf = (rows: readonly KeyedFunnelRow[]): UserDay[] =>
  rows.flatMap((row) => (row.user_key === null ? [] : [{ app_id: row.app_id, user_key: row.user_key, day: new Date(row.timestamp).toISOString().slice(0, 10) }]));

/**
 * Applies imported funnel events (replaceByKeys). An import may move or remove events, so the
 * summaries of the days it touched, before and after, are computed again from the events.
 */
export async function replaceFunnelEvents(tx: DatabaseTransactionConnection, keys: readonly ImportKey[], rows: readonly FunnelEventRow[]): Promise<void> {
  const keyed = await keyedRows(tx, rows);
  const replaced = keys.length === 0 ? [] : await tx.any(sql.type(userDayRow)`
    select distinct e.app_id, e.user_key, to_char((e."timestamp" at time zone 'UTC')::date, 'YYYY-MM-DD') as day
      from json_to_recordset(${JSON.stringify(keys)}::json) as k(app_id uuid, client_event_id uuid)
      join funnel_events e on e.app_id = k.app_id and e.client_event_id = k.client_event_id
     where e.user_key is not null`);
  await ensureKinds(tx, keyed);
  await replaceByKeys(tx, FUNNEL_EVENTS, keys, keyed);
  await refreshUserDays(tx, [...replaced, ...daysOf(keyed)]);
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
  const to = await userKey(tx, claim.user_id);
  // The anonymous id's summaries say which days move; those days of both users are computed again.
  const days = await tx.any(sql.type(z.object({ app_id: z.string(), day: z.string() }))`
    select distinct app_id, to_char(day, 'YYYY-MM-DD') as day from funnel_user_days
     where app_id = any(${sql.array(claim.app_ids, "uuid")}) and user_key = ${from}`);
  await tx.query(sql.unsafe`
    update funnel_events set user_key = ${to}
     where app_id = any(${sql.array(claim.app_ids, "uuid")}) and user_key = ${from}`);
  await refreshUserDays(tx, days.flatMap((day) => [{ ...day, user_key: from }, { ...day, user_key: to }]));
}
