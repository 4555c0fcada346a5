import { sql, type FragmentSqlToken } from "slonik";
import type { DataMode, TimeWindow } from "../../domain/analytics/window.ts";
import type { MetricGroupBy } from "../../domain/metrics/aggregation.ts";
import { rollupSource, type DimensionFilter, type RollupSource } from "../../domain/metrics/dimensions.ts";
import { dataModeCondition } from "../derived-events/sql.ts";

/** Where a metric query reads: one project's active apps, a retained window, a data mode. */
export type MetricScope = TimeWindow & { projectId: string; appIds: readonly string[]; dataMode: DataMode };

/** Filters on event fields: the dimensions have rollups of their own, one at a time; users have none. */
export type MetricFilters = {
  appVersion?: string;
  deviceModel?: string;
  osVersion?: string;
  userId?: string;
  environment?: string;
};

/** The filters on dimensions, as (dimension, value). */
function dimensionFilters(filters: MetricFilters): DimensionFilter[] {
  const given: [DimensionFilter["dimension"], string | undefined][] = [
    ["app_version", filters.appVersion],
    ["device_model", filters.deviceModel],
    ["os_version", filters.osVersion],
    ["environment", filters.environment],
  ];
  return given.flatMap(([dimension, value]) => (value === undefined ? [] : [{ dimension, value }]));
}

/** Which rollups can answer these filters and grouping (domain/metrics/dimensions.ts). */
export const sourceOf = (filters: MetricFilters, grouping: MetricGroupBy | "slug" | undefined): RollupSource =>
  rollupSource(dimensionFilters(filters), filters.userId !== undefined, grouping);

/** The scope without its window: the list has its own time conditions. */
type Place = Pick<MetricScope, "projectId" | "appIds" | "dataMode">;

/** Conditions on table `alias` (metric_events or an hourly rollup) for the project, apps, slugs and data mode. */
function placeConditions(place: Place, slugs: readonly string[], alias: "e" | "h"): FragmentSqlToken[] {
  const t = sql.identifier([alias]);
  return [
    sql.fragment`${t}.project_id = ${place.projectId}`,
    slugs.length === 1 ? sql.fragment`${t}.metric_slug = ${slugs[0]!}` : sql.fragment`${t}.metric_slug = any(${sql.array(slugs, "text")})`,
    sql.fragment`${t}.app_id = any(${sql.array(place.appIds, "uuid")})`,
    dataModeCondition(place.dataMode, sql.fragment`${t}.is_dev`),
  ];
}

/** Conditions on metric_events `e` for the scope's project, apps, slugs, data mode and filters (not time). */
export function eventScope(place: Place, slugs: readonly string[], filters: MetricFilters): FragmentSqlToken[] {
  const conditions = placeConditions(place, slugs, "e");
  if (filters.appVersion !== undefined) conditions.push(sql.fragment`e.app_version = ${filters.appVersion}`);
  if (filters.deviceModel !== undefined) conditions.push(sql.fragment`e.device_model = ${filters.deviceModel}`);
  if (filters.osVersion !== undefined) conditions.push(sql.fragment`e.os_version = ${filters.osVersion}`);
  if (filters.userId !== undefined) conditions.push(sql.fragment`e.user_id = ${filters.userId}`);
  if (filters.environment !== undefined) conditions.push(sql.fragment`e.environment = ${filters.environment}`);
  return conditions;
}

/**
 * Conditions on an hourly rollup `h` for the scope and the source's dimension and value (not
 * time). A dimension source reads a `metric_dim_*` or `metric_duration_hourly` rollup; `all`
 * reads metric_hourly, metric_error_hourly, or the digests of dimension ''.
 */
export function rollupScope(scope: MetricScope, slugs: readonly string[], source: NonNullable<RollupSource>, digest = false): FragmentSqlToken[] {
  const conditions = placeConditions(scope, slugs, "h");
  if (source.kind === "all") {
    if (digest) conditions.push(sql.fragment`h.dimension = ''`);
    return conditions;
  }
  conditions.push(sql.fragment`h.dimension = ${source.dimension}`);
  if (source.value !== undefined) conditions.push(sql.fragment`h.value = ${source.value}`);
  return conditions;
}
