import { round2 } from "../analytics/numbers.ts";
import { largestFirst } from "../analytics/order.ts";
import type { MetricPhase } from "./derive.ts";

export const METRIC_GROUP_BYS = ["time:hour", "time:day", "time:week", "app_id", "app_version", "device_model", "os_version", "environment"] as const;
export type MetricGroupBy = (typeof METRIC_GROUP_BYS)[number];

const isTimeGroup = (groupBy: MetricGroupBy): boolean => groupBy.startsWith("time:");

/** Limits from the spec: top 20 errors, at most 100 groups. */
export const MAX_ERRORS = 20;
const MAX_GROUPS = 100;

/** Counts of one phase in one group (`value` is null without group_by). */
export type PhaseCount = { value: string | null; phase: MetricPhase; events: number; durations: number; duration_sum: number };

/** Unique users and duration percentiles; `sample_rate` below 1 marks them as estimates. */
export type Distribution = { unique_users: number; p50: number | null; p95: number | null; p99: number | null; sample_rate: number };

export type MetricGroup = {
  key: MetricGroupBy;
  value: string | null;
  total_count: number;
  complete_count: number;
  fail_count: number;
  success_rate: number | null;
  duration_avg_ms: number | null;
};

export type Aggregation = {
  total_count: number;
  start_count: number;
  complete_count: number;
  fail_count: number;
  cancel_count: number;
  record_count: number;
  success_rate: number | null;
  duration_avg_ms: number | null;
  duration_p50_ms: number | null;
  duration_p95_ms: number | null;
  duration_p99_ms: number | null;
  unique_users: number;
  error_breakdown: { error: string; count: number }[];
  groups?: MetricGroup[];
  sample_rate: number;
};

/** complete / (complete + fail) * 100 with two decimals; null when neither happened. */
export function successRate(complete: number, fail: number): number | null {
  return complete + fail === 0 ? null : round2((complete * 100) / (complete + fail));
}

const average = (sum: number, count: number): number | null => (count === 0 ? null : round2(sum / count));
const roundOrNull = (value: number | null): number | null => (value === null ? null : round2(value));

type Totals = { total: number; durations: number; durationSum: number; byPhase: Record<MetricPhase, number> };

const emptyTotals = (): Totals => ({ total: 0, durations: 0, durationSum: 0, byPhase: { start: 0, complete: 0, fail: 0, cancel: 0, record: 0 } });

function addTo(totals: Totals, row: PhaseCount): void {
  totals.total += row.events;
  totals.durations += row.durations;
  totals.durationSum += row.duration_sum;
  totals.byPhase[row.phase] += row.events;
}

/**
 * Groups in the order the spec asks: time groups ascending (keeping the latest 100 when there are
 * more), other groups by event count, largest first, ties by value.
 */
function orderGroups(groupBy: MetricGroupBy, groups: MetricGroup[]): MetricGroup[] {
  if (isTimeGroup(groupBy)) {
    const ascending = groups.sort((a, b) => (a.value ?? "").localeCompare(b.value ?? ""));
    return ascending.slice(Math.max(0, ascending.length - MAX_GROUPS));
  }
  return largestFirst(groups, (group) => group.total_count, MAX_GROUPS);
}

/** The aggregation object from per-group phase counts, the top errors and the distribution. */
export function buildAggregation(
  counts: readonly PhaseCount[],
  errors: readonly { error: string; count: number }[],
  distribution: Distribution,
  groupBy?: MetricGroupBy,
): Aggregation {
  const all = emptyTotals();
  const perGroup = new Map<string | null, Totals>();
  for (const row of counts) {
    addTo(all, row);
    if (!groupBy) continue;
    let totals = perGroup.get(row.value);
    if (!totals) perGroup.set(row.value, (totals = emptyTotals()));
    addTo(totals, row);
  }
  const aggregation: Aggregation = {
    total_count: all.total,
    start_count: all.byPhase.start,
    complete_count: all.byPhase.complete,
    fail_count: all.byPhase.fail,
    cancel_count: all.byPhase.cancel,
    record_count: all.byPhase.record,
    success_rate: successRate(all.byPhase.complete, all.byPhase.fail),
    duration_avg_ms: average(all.durationSum, all.durations),
    duration_p50_ms: roundOrNull(distribution.p50),
    duration_p95_ms: roundOrNull(distribution.p95),
    duration_p99_ms: roundOrNull(distribution.p99),
    unique_users: distribution.unique_users,
    error_breakdown: errors.slice(0, MAX_ERRORS).map(({ error, count }) => ({ error, count })),
    sample_rate: distribution.sample_rate,
  };
  if (groupBy) {
    const groups = [...perGroup].map(([value, totals]) => ({
      key: groupBy,
      value,
      total_count: totals.total,
      complete_count: totals.byPhase.complete,
      fail_count: totals.byPhase.fail,
      success_rate: successRate(totals.byPhase.complete, totals.byPhase.fail),
      duration_avg_ms: average(totals.durationSum, totals.durations),
    }));
    aggregation.groups = orderGroups(groupBy, groups);
  }
  return aggregation;
}
