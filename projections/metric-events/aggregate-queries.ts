import { sql, type FragmentSqlToken, type IdentifierSqlToken } from "slonik";
import { z } from "zod";
import { splitHours } from "../../domain/analytics/window.ts";
import { MAX_ERRORS, type MetricGroupBy } from "../../domain/metrics/aggregation.ts";
import { METRIC_PHASES } from "../../domain/metrics/derive.ts";
import type { RollupSource } from "../../domain/metrics/dimensions.ts";
import { and, iso } from "../derived-events/sql.ts";
import { eventScope, rollupScope, sourceOf, type MetricFilters, type MetricScope } from "./scope.ts";

/** What the counts are grouped by: a query's group_by, or the metric (stats over many metrics). */
export type Grouping = MetricGroupBy | "slug" | undefined;

const TIME_UNITS: Record<string, string> = { "time:hour": "hour", "time:day": "day", "time:week": "week" };
const EVENT_COLUMNS: Record<string, string> = { app_version: "app_version", device_model: "device_model", os_version: "os_version", environment: "environment" };

/** The rollups of counts and of error counts of a source. */
const TABLES = {
  all: { counts: "metric_hourly", errors: "metric_error_hourly" },
  dimension: { counts: "metric_dim_hourly", errors: "metric_dim_error_hourly" },
} as const;

/** The group value of a row of the rollup `h` or of metric_events `e`. Time buckets are UTC; a dimension rollup's value is the field's. */
function groupValue(grouping: Grouping, alias: "h" | "e"): FragmentSqlToken {
  if (grouping === undefined) return sql.fragment`null::text`;
  const table = sql.identifier([alias]);
  const unit = TIME_UNITS[grouping];
  if (unit !== undefined) {
    const time = alias === "h" ? sql.fragment`${table}.hour` : sql.fragment`${table}."timestamp"`;
    return sql.fragment`date_trunc(${unit}, ${time}, 'UTC')`;
  }
  if (grouping === "slug") return sql.fragment`${table}.metric_slug`;
  if (grouping === "app_id") return sql.fragment`${table}.app_id::text`;
  if (alias === "h") return sql.fragment`h.value`;
  return sql.fragment`e.${sql.identifier([EVENT_COLUMNS[grouping]!])}`;
}

type Parts = { rollup: FragmentSqlToken | null; raw: FragmentSqlToken };

/**
 * The time conditions of both sources: whole hours from the rollup, the edges from the events;
 * or, when the rollups cannot answer, the whole window from the events.
 */
export function timeParts(scope: MetricScope, useRollups: boolean): Parts {
  if (!useRollups) return { rollup: null, raw: sql.fragment`e."timestamp" >= ${iso(scope.since)} and e."timestamp" <= ${iso(scope.until)}` };
  const { rollupFrom, rollupTo } = splitHours(scope);
  return {
    rollup: sql.fragment`h.hour >= ${iso(rollupFrom)} and h.hour < ${iso(rollupTo)}`,
    raw: sql.fragment`((e."timestamp" >= ${iso(scope.since)} and e."timestamp" < ${iso(rollupFrom)})
                     or (e."timestamp" >= ${iso(rollupTo)} and e."timestamp" <= ${iso(scope.until)}))`,
  };
}

/**
 * The rollup half of a query (`select ... union all`), or nothing when only the events answer
 * or the window holds no whole hour. `part` builds it from the source's table of counts (or of
 * error counts).
 */
function rollupPart(
  source: RollupSource,
  time: Parts,
  part: (table: IdentifierSqlToken, source: NonNullable<RollupSource>) => FragmentSqlToken,
  kind: "counts" | "errors" = "counts",
): FragmentSqlToken {
  if (source === null || time.rollup === null) return sql.fragment``;
  return sql.fragment`${part(sql.identifier([TABLES[source.kind][kind]]), source)} union all`;
}

export const phaseCountRow = z.object({
  value: z.string().nullable(),
  phase: z.enum(METRIC_PHASES),
  events: z.number(),
  durations: z.number(),
  duration_sum: z.number(),
});

/**
 * Events, durations and their sum per group and phase in the window (rows of `phaseCountRow`,
 * read with analyticsRows: an hourly grouping has thousands). Time buckets are written as ISO 8601
 * with milliseconds, like every timestamp the API shows.
 */
export function countsQuery(scope: MetricScope, slugs: readonly string[], filters: MetricFilters, grouping: Grouping) {
  const source = sourceOf(filters, grouping);
  const time = timeParts(scope, source !== null);
  const raw = sql.fragment`
    select ${groupValue(grouping, "e")} as value, e.phase, count(*) as events, count(e.duration_ms) as durations,
           coalesce(sum(e.duration_ms::numeric), 0) as duration_sum
      from metric_events e where ${and([...eventScope(scope, slugs, filters), time.raw])} group by 1, 2`;
  const rollup = rollupPart(source, time, (table, from) => sql.fragment`
    select ${groupValue(grouping, "h")} as value, h.phase, h.events, h.durations, h.duration_sum
      from ${table} h where ${and([...rollupScope(scope, slugs, from), time.rollup!])}`);
  const value = grouping !== undefined && grouping in TIME_UNITS ? sql.fragment`to_char(value at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : sql.fragment`value`;
  return sql.fragment`
    select ${value} as value, phase, sum(events)::bigint as events, sum(durations)::bigint as durations, sum(duration_sum)::float8 as duration_sum
      from (${rollup} ${raw}) parts
     group by parts.value, phase having sum(events) > 0`;
}

const errorRow = z.object({ error: z.string(), count: z.number() });

/** The most frequent errors of fail events in the window, ties by error text. */
export function errorsQuery(scope: MetricScope, slug: string, filters: MetricFilters) {
  const source = sourceOf(filters, undefined);
  const time = timeParts(scope, source !== null);
  const raw = sql.fragment`
    select e.error, count(*) as events from metric_events e
     where ${and([...eventScope(scope, [slug], filters), time.raw, sql.fragment`e.phase = 'fail' and e.error is not null`])}
     group by 1`;
  const rollup = rollupPart(source, time, (table, from) => sql.fragment`
    select h.error, h.events from ${table} h where ${and([...rollupScope(scope, [slug], from), time.rollup!])}`, "errors");
  return sql.type(errorRow)`
    select error, sum(events)::bigint as count from (${rollup} ${raw}) parts
     group by error having sum(events) > 0 order by count desc, error limit ${MAX_ERRORS}`;
}

/** The window's events, or only those in sample buckets below `threshold` when given. */
function windowRows(scope: MetricScope, slug: string, filters: MetricFilters, threshold: number | null): FragmentSqlToken[] {
  const conditions = [...eventScope(scope, [slug], filters), sql.fragment`e."timestamp" >= ${iso(scope.since)} and e."timestamp" <= ${iso(scope.until)}`];
  if (threshold !== null) conditions.push(sql.fragment`e.sample < ${threshold}`);
  return conditions;
}

/** Distinct users, by hashing (count(distinct) would sort every user id). */
export function usersQuery(scope: MetricScope, slug: string, filters: MetricFilters, threshold: number | null) {
  return sql.type(z.object({ users: z.number() }))`
    select count(*) as users from (
      select distinct e.user_id from metric_events e where ${and([...windowRows(scope, slug, filters, threshold), sql.fragment`e.user_id is not null`])}
    ) users`;
}

/** The exact 50th, 95th and 99th duration percentiles, continuous (interpolated between neighbours). */
export function percentilesQuery(scope: MetricScope, slug: string, filters: MetricFilters) {
  return sql.type(z.object({ percentiles: z.array(z.number()).nullable() }))`
    select percentile_cont(array[0.5, 0.95, 0.99]::float8[]) within group (order by e.duration_ms) as percentiles
      from metric_events e where ${and([...windowRows(scope, slug, filters, null), sql.fragment`e.duration_ms is not null`])}`;
}

