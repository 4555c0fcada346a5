import { sql, type FragmentSqlToken } from "slonik";
import type { DataMode, TimeWindow } from "../../domain/analytics/window.ts";
import { dataModeCondition } from "../derived-events/sql.ts";

/** Where a metric query reads: one project's active apps, a retained window, a data mode. */
export type MetricScope = TimeWindow & { projectId: string; appIds: readonly string[]; dataMode: DataMode };

/** Filters that only the events themselves carry (the hourly counts know apps, not these). */
export type MetricFilters = {
  appVersion?: string;
  deviceModel?: string;
  osVersion?: string;
  userId?: string;
  environment?: string;
};

export const hasEventFilters = (filters: MetricFilters): boolean => Object.values(filters).some((value) => value !== undefined);

/** Conditions on metric_events `e` for the scope's project, apps, slugs and data mode (not time). */
export function eventScope(scope: MetricScope, slugs: readonly string[], filters: MetricFilters): FragmentSqlToken[] {
  const conditions = [
    sql.fragment`e.project_id = ${scope.projectId}`,
    slugs.length === 1 ? sql.fragment`e.metric_slug = ${slugs[0]!}` : sql.fragment`e.metric_slug = any(${sql.array(slugs, "text")})`,
    sql.fragment`e.app_id = any(${sql.array(scope.appIds, "uuid")})`,
    dataModeCondition(scope.dataMode, sql.fragment`e.is_dev`),
  ];
  if (filters.appVersion !== undefined) conditions.push(sql.fragment`e.app_version = ${filters.appVersion}`);
  if (filters.deviceModel !== undefined) conditions.push(sql.fragment`e.device_model = ${filters.deviceModel}`);
  if (filters.osVersion !== undefined) conditions.push(sql.fragment`e.os_version = ${filters.osVersion}`);
  if (filters.userId !== undefined) conditions.push(sql.fragment`e.user_id = ${filters.userId}`);
  if (filters.environment !== undefined) conditions.push(sql.fragment`e.environment = ${filters.environment}`);
  return conditions;
}

/** Conditions on an hourly rollup `h` for the scope (not time). */
export function rollupScope(scope: MetricScope, slugs: readonly string[]): FragmentSqlToken[] {
  return [
    sql.fragment`h.project_id = ${scope.projectId}`,
    slugs.length === 1 ? sql.fragment`h.metric_slug = ${slugs[0]!}` : sql.fragment`h.metric_slug = any(${sql.array(slugs, "text")})`,
    sql.fragment`h.app_id = any(${sql.array(scope.appIds, "uuid")})`,
    dataModeCondition(scope.dataMode, sql.fragment`h.is_dev`),
  ];
}
