import { sql, type DatabaseTransactionConnection } from "slonik";
import type { FunnelEventRow } from "../../domain/funnels/derive.ts";
import type { ImportKey } from "../derived-events/plan.ts";
import { insertDeduped, replaceByKeys, type DerivedTable } from "../derived-events/write.ts";

const FUNNEL_EVENTS: DerivedTable = {
  name: "funnel_events",
  dedup: "funnel_event_dedup",
  columns: [
    "id", "project_id", "app_id", "client_event_id", "session_id", "user_id", "step_name", "screen_name", "environment", "app_version",
    "os_version", "device_model", "is_dev", "timestamp", "received_at",
  ],
  record: sql.fragment`
    id uuid, project_id uuid, app_id uuid, client_event_id uuid, session_id uuid, user_id text, step_name text,
    screen_name text, environment text, app_version text, os_version text, device_model text, is_dev boolean,
    "timestamp" timestamptz, received_at timestamptz`,
};

/** Writes ingested funnel events, skipping duplicates (insertDeduped). */
export const insertFunnelEvents = (tx: DatabaseTransactionConnection, rows: readonly FunnelEventRow[]): Promise<void> => insertDeduped(tx, FUNNEL_EVENTS, rows);

/** Applies imported funnel events (replaceByKeys). */
export const replaceFunnelEvents = (tx: DatabaseTransactionConnection, keys: readonly ImportKey[], rows: readonly FunnelEventRow[]): Promise<void> =>
  replaceByKeys(tx, FUNNEL_EVENTS, keys, rows);
