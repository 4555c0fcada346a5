import type { MetricGroupBy } from "./aggregation.ts";

/**
 * The event fields a metric query may filter or group by that have hourly rollups of their own
 * (projections/metric-events: one rollup row per hour and value of one field).
 */
export const METRIC_DIMENSIONS = ["app_version", "device_model", "os_version", "environment"] as const;
export type MetricDimension = (typeof METRIC_DIMENSIONS)[number];

export const isDimension = (groupBy: MetricGroupBy | string | undefined): groupBy is MetricDimension =>
  (METRIC_DIMENSIONS as readonly string[]).includes(groupBy ?? "");

/** One dimension's value a query keeps. */
export type DimensionFilter = { dimension: MetricDimension; value: string };

/**
 * Where a query's counts and digests can come from: `all` rollups (every event of an hour), the
 * rollups of one dimension (one value of it when `value` is given, else every value, for a
 * grouping by it), or null: only the events can answer. Rollups hold one dimension at a time, so
 * filters on two dimensions, or a filter on one and a grouping by another, read the events; so
 * does a user filter (no rollup knows users; it selects few rows through its own index).
 */
export type RollupSource = { kind: "all" } | { kind: "dimension"; dimension: MetricDimension; value?: string } | null;

export function rollupSource(filters: readonly DimensionFilter[], byUser: boolean, groupBy: MetricGroupBy | "slug" | undefined): RollupSource {
  if (byUser || filters.length > 1) return null;
  const grouped = isDimension(groupBy) ? groupBy : undefined;
  const [filter] = filters;
  if (filter === undefined) return grouped === undefined ? { kind: "all" } : { kind: "dimension", dimension: grouped };
  if (grouped !== undefined && grouped !== filter.dimension) return null;
  return { kind: "dimension", dimension: filter.dimension, value: filter.value };
}
