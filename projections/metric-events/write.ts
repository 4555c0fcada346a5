import { sql, type DatabaseTransactionConnection } from "slonik";
import type { MetricEventRow } from "../../domain/metrics/derive.ts";
import type { ImportKey } from "../derived-events/plan.ts";
import { insertDeduped, replaceByKeys, type DerivedTable } from "../derived-events/write.ts";
import { dimensionRollups, durationBin } from "./dimension-rollups.ts";

const METRIC_EVENTS: DerivedTable = {
  name: "metric_events",
  dedup: "metric_event_dedup",
  columns: [
    "id", "project_id", "app_id", "client_event_id", "session_id", "user_id", "api_key_id", "metric_slug", "phase", "tracking_id", "duration_ms",
    "error", "attributes", "environment", "os_version", "app_version", "device_model", "build_number", "is_dev", "timestamp", "received_at",
  ],
  record: sql.fragment`
    id uuid, project_id uuid, app_id uuid, client_event_id uuid, session_id uuid, user_id text, api_key_id uuid,
    metric_slug text, phase text, tracking_id text, duration_ms double precision, error text, attributes jsonb,
    environment text, os_version text, app_version text, device_model text, build_number text, is_dev boolean,
    "timestamp" timestamptz, received_at timestamptz`,
};

/** The columns of `changes` the rollups read (with `sign`): the counted row's keys and fields, and its duration's digest bin. */
const CHANGED = sql.fragment`
  project_id, metric_slug, "timestamp", app_id, is_dev, phase, duration_ms, error, app_version, device_model, os_version, environment,
  ${durationBin} as bin`;

/**
 * Adds the signed rows of `changes` (+1 written, -1 removed) to the hourly counts and error
 * counts, the same per dimension value, and the duration digests (dimension-rollups.ts). Rows
 * are grouped first: one upsert may not touch a key twice.
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
  ),
  ${dimensionRollups}`;

/** Writes ingested metric events, skipping duplicates (insertDeduped), and counts them. */
export async function insertMetricEvents(tx: DatabaseTransactionConnection, rows: readonly MetricEventRow[]): Promise<void> {
  await insertDeduped(tx, METRIC_EVENTS, rows, sql.fragment`changes as (select ${CHANGED}, 1 as sign from fresh), ${rollups}`);
}

/** Applies imported metric events (replaceByKeys); the counts move by the difference. */
export async function replaceMetricEvents(tx: DatabaseTransactionConnection, keys: readonly ImportKey[], rows: readonly MetricEventRow[]): Promise<void> {
  await replaceByKeys(
    tx,
    METRIC_EVENTS,
    keys,
    rows,
    sql.fragment`
    changes as (
      select ${CHANGED}, 1 as sign from input
      union all
      select ${CHANGED}, -1 from removed
    ),
    ${rollups}`,
  );
}
