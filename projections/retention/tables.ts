import type { RetentionKind } from "../../domain/projects/retention.ts";

/** What the cleanup reports it deleted row by row, per table. */
export type DeletedCounts = {
  events_deleted: number;
  event_retimed_deleted: number;
  metric_events_deleted: number;
  metric_hourly_deleted: number;
  metric_error_hourly_deleted: number;
  /** Rows of the metric rollups by dimension and of the duration digests (hourly and daily). */
  metric_dimension_rollups_deleted: number;
  funnel_events_deleted: number;
  /** Per-user step summaries of expired funnel events (funnel-user-days.ts). */
  funnel_user_days_deleted: number;
  /** Minute and hour rows of the events count rollups. */
  event_rollups_deleted: number;
};

/** A read-model table whose rows expire with their project's retention of one kind. */
export type ExpiringTable = {
  /** The read model whose active generation holds it. */
  projection: string;
  table: string;
  kind: RetentionKind;
  /**
   * The columns an index of the table leads with before `time`: rows are deleted one value of
   * them at a time, each a narrow index range, so every chunk finds its rows without scanning
   * what earlier chunks left dead.
   */
  keys: readonly string[];
  time: string;
  /** Partitioned by month of `time` (`<table>_pYYYYMM`): a month expired for every project is dropped whole. */
  monthly: boolean;
  /** Rows are hourly counts: a bucket goes once its whole hour is before the cutoff. */
  hourly: boolean;
  /** Rows are minute counts: a bucket goes once its whole minute is before the cutoff. */
  minutely?: boolean;
  /** A table of `(id, "timestamp")` rows that only exist for rows of this one: they go with them. */
  companion?: { table: string; counter: keyof DeletedCounts };
  counter: keyof DeletedCounts;
};

/**
 * Every table retention applies to. Left alone, with why:
 * - the dedup tables (`event_dedup`, `metric_event_dedup`, `funnel_event_dedup`) are keyed by
 *   receipt, not by event time, and their projectors drop their day partitions two days after
 *   receipt already;
 * - `funnel_users`, `funnel_names` and `funnel_kinds` are dictionaries of keys: a key without
 *   rows costs a few bytes and is harmless;
 * - `funnel_user_days`, the funnel events' per-user summaries, go after them by day, not row by
 *   row here (funnel-user-days.ts);
 * - the app users read model: identity facts define users for ever.
 */
export const EXPIRING_TABLES: readonly ExpiringTable[] = [
  {
    projection: "events",
    table: "events",
    kind: "events",
    // events_by_app_time (app_id, "timestamp"); the project is read off the rows.
    keys: ["app_id"],
    time: "timestamp",
    monthly: true,
    hourly: false,
    companion: { table: "event_retimed", counter: "event_retimed_deleted" },
    counter: "events_deleted",
  },
  // The events count rollups go with the events they count: whole months dropped with theirs,
  // elsewhere the buckets that ended before the project's cutoff (the bucket holding the cutoff
  // stays until the next run after it ends). Per app and per whole project, through their primary
  // keys (project_id, app_id, minute | hour, is_dev).
  {
    projection: "events",
    table: "event_totals_minute",
    kind: "events",
    keys: ["project_id", "app_id"],
    time: "minute",
    monthly: true,
    hourly: false,
    minutely: true,
    counter: "event_rollups_deleted",
  },
  {
    projection: "events",
    table: "event_totals_hour",
    kind: "events",
    keys: ["project_id", "app_id"],
    time: "hour",
    monthly: true,
    hourly: true,
    counter: "event_rollups_deleted",
  },
  {
    projection: "metric_events",
    table: "metric_events",
    kind: "metrics",
    // metric_events_by_slug_time (project_id, metric_slug, "timestamp").
    keys: ["project_id", "metric_slug"],
    time: "timestamp",
    monthly: true,
    hourly: false,
    counter: "metric_events_deleted",
  },
  // The hourly counts follow the metric events they count, by hour: a query reads a bucket only
  // for whole hours within the project's retention (domain/analytics/window.ts), so a bucket that
  // ended before the cutoff is never read again.
  { projection: "metric_events", table: "metric_hourly", kind: "metrics", keys: ["project_id", "metric_slug"], time: "hour", monthly: false, hourly: true, counter: "metric_hourly_deleted" },
  {
    projection: "metric_events",
    table: "metric_error_hourly",
    kind: "metrics",
    keys: ["project_id", "metric_slug"],
    time: "hour",
    monthly: false,
    hourly: true,
    counter: "metric_error_hourly_deleted",
  },
  // The metric rollups by dimension and the duration digests, likewise by hour, through their keys
  // (project_id, metric_slug, dimension, hour | day, ...). A daily digest is read only for a whole
  // day inside the retained window, so once its day started before the cutoff it is never read
  // again and goes by the same rule as an hour.
  ...["metric_dim_hourly", "metric_dim_error_hourly", "metric_duration_hourly", "metric_duration_daily"].map(
    (table): ExpiringTable => ({
      projection: "metric_events",
      table,
      kind: "metrics",
      keys: ["project_id", "metric_slug", "dimension"],
      time: table === "metric_duration_daily" ? "day" : "hour",
      monthly: false,
      hourly: true,
      counter: "metric_dimension_rollups_deleted",
    }),
  ),
  {
    projection: "funnel_events",
    table: "funnel_events",
    kind: "funnels",
    // Partitioned by user hash, not by month (its migration says why): rows are always deleted,
    // through funnel_events_by_step (project_id, step_key, "timestamp").
    keys: ["project_id", "step_key"],
    time: "timestamp",
    monthly: false,
    hourly: false,
    counter: "funnel_events_deleted",
  },
];
