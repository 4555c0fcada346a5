import type { DatabasePool } from "slonik";
import { orderBreakdown, stepAnalytics, type FunnelBreakdown, type FunnelMode, type StepAnalytics, type StepFilter } from "../../domain/funnels/analytics.ts";
import { closedStepsFromOrder, closedStepsReached, disjointSteps, type StepEvent } from "../../domain/funnels/walk.ts";
import { analyticsRead, analyticsRows } from "../derived-events/sql.ts";
import { completionsQuery, countsRow, openCountsQuery, stepEventsOfUsersQuery, userEvents, type FunnelScope } from "./analytics-queries.ts";
import { closedCountsQuery } from "./closed-query.ts";
import { keyedFilters, type KeyedStepFilter } from "./keys.ts";

export type FunnelStepDefinition = { name: string; event_filter: StepFilter };

export type FunnelAnalytics = {
  funnel: string;
  mode: FunnelMode;
  total_users: number;
  steps: StepAnalytics[];
  breakdown?: { key: FunnelBreakdown; value: string | null; total_users: number; steps: StepAnalytics[] }[];
};

/** Users reaching each step per breakdown value (one entry, value null, without a breakdown). */
type Counts = Map<string | null, number[]>;

/** Adds `users` users who reached `reached` steps to the value's counts (they count at each step). */
function add(counts: Counts, steps: number, value: string | null, reached: number, users: number): void {
  const row = counts.get(value) ?? Array.from({ length: steps }, () => 0);
  counts.set(value, row);
  for (let k = 0; k < reached; k += 1) row[k] = (row[k] ?? 0) + users;
}

/**
 * Users per step in one mode. Closed funnels come back as users per steps reached, per order
 * pattern (closedStepsFromOrder) and, for the few whose first and last step times cannot settle
 * it, one by one: their events are read and walked here.
 */
async function countUsers(
  pool: DatabasePool,
  scope: FunnelScope,
  filters: readonly StepFilter[],
  keyed: readonly KeyedStepFilter[],
  mode: FunnelMode,
  breakdown?: FunnelBreakdown,
): Promise<Counts> {
  const query = mode === "open" ? openCountsQuery(scope, keyed, breakdown) : closedCountsQuery(scope, keyed, breakdown, disjointSteps(filters));
  const counts: Counts = new Map();
  // (user, value) pairs to walk, keyed as JSON; the value is the pair's user key.
  const unresolved = new Map<string, number>();
  for (const row of await analyticsRows(pool, query, countsRow)) {
    if (row.unresolved_user !== null) {
      unresolved.set(JSON.stringify([row.unresolved_user, row.value]), row.unresolved_user);
      add(counts, filters.length, row.value, 0, 0);
    } else {
      add(counts, filters.length, row.value, row.pattern === null ? row.reached : closedStepsFromOrder(row.pattern, -row.reached), row.users);
    }
  }
  if (unresolved.size === 0) return counts;
  const users = [...new Set(unresolved.values())];
  for (const { user_key, value, events } of await analyticsRows(pool, stepEventsOfUsersQuery(scope, keyed, users, breakdown), userEvents)) {
    if (!unresolved.has(JSON.stringify([user_key, value]))) continue;
    const walked = events.map(([step_name, screen_name, time]): StepEvent => ({ step_name, screen_name, time }));
    add(counts, filters.length, value, closedStepsReached(walked, filters), 1);
  }
  return counts;
}

/** Step analytics of a funnel over the scope, with a breakdown by environment or app version when asked. */
export async function funnelAnalytics(
  pool: DatabasePool,
  scope: FunnelScope,
  funnel: { name: string; steps: readonly FunnelStepDefinition[] },
  mode: FunnelMode,
  breakdown?: FunnelBreakdown,
): Promise<FunnelAnalytics> {
  const filters = funnel.steps.map((step) => step.event_filter);
  const names = funnel.steps.map((step) => step.name);
  const none: Counts = new Map();
  const keyed = scope.appIds.length === 0 ? [] : await keyedFilters(pool, filters);
  const [overall, grouped] = await Promise.all([
    scope.appIds.length === 0 ? none : countUsers(pool, scope, filters, keyed, mode),
    breakdown === undefined || scope.appIds.length === 0 ? none : countUsers(pool, scope, filters, keyed, mode, breakdown),
  ]);
  const steps = stepAnalytics(names, overall.get(null) ?? filters.map(() => 0));
  const result: FunnelAnalytics = { funnel: funnel.name, mode, total_users: steps[0]?.unique_users ?? 0, steps };
  if (breakdown !== undefined) {
    const rows = [...grouped].map(([value, users]) => {
      const groupSteps = stepAnalytics(names, users);
      return { key: breakdown, value, total_users: groupSteps[0]?.unique_users ?? 0, steps: groupSteps };
    });
    result.breakdown = orderBreakdown(rows.filter((row) => row.steps.some((step) => step.unique_users > 0)));
  }
  return result;
}

/** Users who did the funnel's last step, and who did its first or last step, in the scope. */
export async function funnelCompletions(pool: DatabasePool, scope: FunnelScope, steps: readonly StepFilter[]): Promise<{ count: number; started: number }> {
  if (scope.appIds.length === 0 || steps.length === 0) return { count: 0, started: 0 };
  const [row] = await analyticsRead(pool, completionsQuery(scope, await keyedFilters(pool, steps)));
  return { count: row?.count ?? 0, started: row?.started ?? 0 };
}
