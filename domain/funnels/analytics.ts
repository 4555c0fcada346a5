import { percentOf } from "../analytics/numbers.ts";
import { largestFirst } from "../analytics/order.ts";

export const FUNNEL_MODES = ["open", "closed"] as const;
export type FunnelMode = (typeof FUNNEL_MODES)[number];

export const FUNNEL_BREAKDOWNS = ["environment", "app_version"] as const;
export type FunnelBreakdown = (typeof FUNNEL_BREAKDOWNS)[number];

/** A step's event filter: at least one of the two is set (the definition rule). */
export type StepFilter = { step_name?: string; screen_name?: string };

/** Breakdowns beyond this many values are cut, keeping the values with the most users at step 0. */
const MAX_BREAKDOWN_VALUES = 100;

export type StepAnalytics = {
  step_index: number;
  step_name: string;
  unique_users: number;
  percentage: number;
  drop_off_count: number;
  drop_off_percentage: number;
};

/**
 * Step figures from the users reaching each step. Both modes give counts that never grow from a
 * step to the next (closed: each step's users did the previous one; open: earlier steps are
 * raised by users reaching any later one), so the drop-off is the difference to the previous step.
 * Percentages are of step 0 and, for drop-offs, of the previous step, with two decimals.
 */
export function stepAnalytics(names: readonly string[], users: readonly number[]): StepAnalytics[] {
  const first = users[0] ?? 0;
  return names.map((name, index) => {
    const count = users[index] ?? 0;
    const previous = index === 0 ? count : (users[index - 1] ?? 0);
    const dropOff = index === 0 ? 0 : previous - count;
    return {
      step_index: index,
      step_name: name,
      unique_users: count,
      percentage: percentOf(count, first),
      drop_off_count: dropOff,
      drop_off_percentage: index === 0 ? 0 : percentOf(dropOff, previous),
    };
  });
}

/** Breakdown rows by users at step 0, most first, ties by value (null last), at most 100. */
export function orderBreakdown<T extends { value: string | null; total_users: number }>(rows: T[]): T[] {
  return largestFirst(rows, (row) => row.total_users, MAX_BREAKDOWN_VALUES);
}
