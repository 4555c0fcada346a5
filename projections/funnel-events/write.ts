import { sql, type DatabaseTransactionConnection } from "slonik";
import type { FunnelEventRow } from "../../domain/funnels/derive.ts";
import { DEDUP_WINDOW_MS } from "../../domain/ingest/rules.ts";
import type { ImportKey } from "../derived-events/plan.ts";

const COLUMNS = sql.fragment`
  id, project_id, app_id, client_event_id, session_id, user_id, step_name, screen_name, environment, app_version,
  os_version, device_model, is_dev, "timestamp", received_at`;

const RECORD = sql.fragment`
  id uuid, project_id uuid, app_id uuid, client_event_id uuid, session_id uuid, user_id text, step_name text,
  screen_name text, environment text, app_version text, os_version text, device_model text, is_dev boolean,
  "timestamp" timestamptz, received_at timestamptz`;

/**
 * Writes ingested funnel events in one statement, skipping a row whose (app_id, client_event_id)
 * was kept in the 48 hours before its receipt (see insertMetricEvents for why this is race-free).
 */
export async function insertFunnelEvents(tx: DatabaseTransactionConnection, rows: readonly FunnelEventRow[]): Promise<void> {
  if (rows.length === 0) return;
  const minReceived = Math.min(...rows.map((row) => Date.parse(row.received_at)));
  const cutoff = new Date(minReceived - DEDUP_WINDOW_MS).toISOString();
  await tx.query(sql.unsafe`
    with input as materialized (
      select * from json_to_recordset(${JSON.stringify(rows)}::json) as r(${RECORD})
    ),
    fresh as materialized (
      select * from input i
       where i.client_event_id is null
          or not exists (
               select 1 from funnel_event_dedup d
                where d.app_id = i.app_id and d.client_event_id = i.client_event_id
                  and d.received_at >= i.received_at - ${`${DEDUP_WINDOW_MS} milliseconds`}::interval
                  and d.received_at >= ${cutoff}::timestamptz)
    ),
    remembered as (
      insert into funnel_event_dedup (app_id, client_event_id, received_at)
      select app_id, client_event_id, received_at from fresh where client_event_id is not null
    )
    insert into funnel_events (${COLUMNS}) select ${COLUMNS} from fresh`);
}

/**
 * Applies imported events: removes the funnel events derived from events with one of `keys` and
 * writes `rows`, each keeping the id of the row it replaces (the latest received, if several).
 */
export async function replaceFunnelEvents(tx: DatabaseTransactionConnection, keys: readonly ImportKey[], rows: readonly FunnelEventRow[]): Promise<void> {
  if (keys.length === 0 && rows.length === 0) return;
  await tx.query(sql.unsafe`
    with keys as (
      select * from json_to_recordset(${JSON.stringify(keys)}::json) as k(app_id uuid, client_event_id uuid)
    ),
    removed as (
      delete from funnel_events f using keys k
       where f.app_id = k.app_id and f.client_event_id = k.client_event_id
      returning f.app_id, f.client_event_id, f.id, f.received_at
    ),
    kept as (
      select distinct on (app_id, client_event_id) app_id, client_event_id, id from removed
       order by app_id, client_event_id, received_at desc, id desc
    ),
    input as materialized (
      select coalesce(kept.id, r.id) as id, r.project_id, r.app_id, r.client_event_id, r.session_id, r.user_id, r.step_name,
             r.screen_name, r.environment, r.app_version, r.os_version, r.device_model, r.is_dev, r."timestamp", r.received_at
        from json_to_recordset(${JSON.stringify(rows)}::json) as r(${RECORD})
        left join kept on kept.app_id = r.app_id and kept.client_event_id = r.client_event_id
    ),
    remembered as (
      insert into funnel_event_dedup (app_id, client_event_id, received_at)
      select app_id, client_event_id, received_at from input where client_event_id is not null
    )
    insert into funnel_events (${COLUMNS}) select ${COLUMNS} from input`);
}
