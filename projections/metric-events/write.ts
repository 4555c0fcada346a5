import { sql, type DatabaseTransactionConnection } from "slonik";
import type { MetricEventRow } from "../../domain/metrics/derive.ts";
import { DEDUP_WINDOW_MS } from "../../domain/ingest/rules.ts";
import type { ImportKey } from "../derived-events/plan.ts";

const COLUMNS = sql.fragment`
  id, project_id, app_id, client_event_id, session_id, user_id, api_key_id, metric_slug, phase, tracking_id, duration_ms,
  error, attributes, environment, os_version, app_version, device_model, build_number, is_dev, "timestamp", received_at`;

const RECORD = sql.fragment`
  id uuid, project_id uuid, app_id uuid, client_event_id uuid, session_id uuid, user_id text, api_key_id uuid,
  metric_slug text, phase text, tracking_id text, duration_ms double precision, error text, attributes jsonb,
  environment text, os_version text, app_version text, device_model text, build_number text, is_dev boolean,
  "timestamp" timestamptz, received_at timestamptz`;

const WINDOW = sql.fragment`${`${DEDUP_WINDOW_MS} milliseconds`}::interval`;

/**
 * Adds the signed rows of `changes` (+1 written, -1 removed) to the hourly counts and the hourly
 * error counts. Rows are grouped first: one upsert may not touch a key twice.
 */
const rollups = sql.fragment`
  counted as (
    insert into metric_hourly as h (project_id, metric_slug, hour, app_id, is_dev, phase, events, durations, duration_sum)
    select project_id, metric_slug, date_trunc('hour', "timestamp", 'UTC'), app_id, is_dev, phase,
           sum(sign), sum(case when duration_ms is null then 0 else sign end), coalesce(sum(sign * duration_ms::numeric), 0)
      from changes group by 1, 2, 3, 4, 5, 6
    on conflict (project_id, metric_slug, hour, app_id, is_dev, phase) do update
      set events = h.events + excluded.events, durations = h.durations + excluded.durations,
          duration_sum = h.duration_sum + excluded.duration_sum
  ),
  failed as (
    insert into metric_error_hourly as h (project_id, metric_slug, hour, app_id, is_dev, error, events)
    select project_id, metric_slug, date_trunc('hour', "timestamp", 'UTC'), app_id, is_dev, error, sum(sign)
      from changes where phase = 'fail' and error is not null group by 1, 2, 3, 4, 5, 6
    on conflict (project_id, metric_slug, hour, app_id, is_dev, error) do update set events = h.events + excluded.events
  )`;

/**
 * Writes ingested metric events in one statement, skipping duplicates: a row whose
 * (app_id, client_event_id) was kept in the 48 hours before its receipt. The caller removed
 * repeats inside `rows`; the projector is the only writer and applies facts in order, so the
 * anti-join is race-free. `cutoff` bounds the dedup scan to the days that can match.
 */
export async function insertMetricEvents(tx: DatabaseTransactionConnection, rows: readonly MetricEventRow[]): Promise<void> {
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
               select 1 from metric_event_dedup d
                where d.app_id = i.app_id and d.client_event_id = i.client_event_id
                  and d.received_at >= i.received_at - ${WINDOW} and d.received_at >= ${cutoff}::timestamptz)
    ),
    remembered as (
      insert into metric_event_dedup (app_id, client_event_id, received_at)
      select app_id, client_event_id, received_at from fresh where client_event_id is not null
    ),
    changes as (select *, 1 as sign from fresh),
    ${rollups}
    insert into metric_events (${COLUMNS}) select ${COLUMNS} from fresh`);
}

/**
 * Applies imported events: removes every metric event derived from an event with one of `keys`
 * and writes `rows`, a row taking the id of the row it replaces (the import updated that event in
 * place; with several, the latest received). Counts move by the difference.
 */
export async function replaceMetricEvents(tx: DatabaseTransactionConnection, keys: readonly ImportKey[], rows: readonly MetricEventRow[]): Promise<void> {
  if (keys.length === 0 && rows.length === 0) return;
  await tx.query(sql.unsafe`
    with keys as (
      select * from json_to_recordset(${JSON.stringify(keys)}::json) as k(app_id uuid, client_event_id uuid)
    ),
    removed as (
      delete from metric_events m using keys k
       where m.app_id = k.app_id and m.client_event_id = k.client_event_id
      returning m.*
    ),
    kept as (
      select distinct on (app_id, client_event_id) app_id, client_event_id, id from removed
       order by app_id, client_event_id, received_at desc, id desc
    ),
    input as materialized (
      select coalesce(kept.id, r.id) as id, r.project_id, r.app_id, r.client_event_id, r.session_id, r.user_id, r.api_key_id,
             r.metric_slug, r.phase, r.tracking_id, r.duration_ms, r.error, r.attributes, r.environment, r.os_version,
             r.app_version, r.device_model, r.build_number, r.is_dev, r."timestamp", r.received_at
        from json_to_recordset(${JSON.stringify(rows)}::json) as r(${RECORD})
        left join kept on kept.app_id = r.app_id and kept.client_event_id = r.client_event_id
    ),
    remembered as (
      insert into metric_event_dedup (app_id, client_event_id, received_at)
      select app_id, client_event_id, received_at from input where client_event_id is not null
    ),
    changes as (
      select project_id, metric_slug, "timestamp", app_id, is_dev, phase, duration_ms, error, 1 as sign from input
      union all
      select project_id, metric_slug, "timestamp", app_id, is_dev, phase, duration_ms, error, -1 from removed
    ),
    ${rollups}
    insert into metric_events (${COLUMNS}) select ${COLUMNS} from input`);
}
