import type { DatabasePool } from "slonik";
import { orderBreakdown, stepAnalytics, type FunnelBreakdown, type FunnelMode, type StepAnalytics, type StepFilter } from "../../domain/funnels/analytics.ts";
import { closedStepsFromOrder, closedStepsReached, disjointSteps, type StepEvent } from "../../domain/funnels/walk.ts";
import { analyticsRead, analyticsRows } from "../derived-events/sql.ts";
import { completionsQuery, countsRow, openCountsQuery, stepEventsOfUsersQuery, userEvents, type FunnelScope } from "./analytics-queries.ts";
import { closedCountsQuery } from "./closed-query.ts";
import { keyedFilters, type KeyedStepFilter } from "./keys.ts";
import { eventSource, summarySource, type StepSource } from "./step-source.ts";
import { kindsOfSteps, straddlingUsers, summarized } from "./summary-queries.ts";

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
 * Where a funnel is counted from: the per-user step summaries, and the events of the users whose
 * summaries straddle an end of the window; or only the events, for a funnel matching many kinds
 * or kinds the summaries leave out.
 * The steps' keys, their kinds and the straddling users are three lookups sent at once.
 */
async function sourcesOf(pool: DatabasePool, scope: FunnelScope, filters: readonly StepFilter[]): Promise<{ keyed: KeyedStepFilter[]; sources: StepSource[] }> {
  const [keyed, kinds, straddling] = await Promise.all([keyedFilters(pool, filters), kindsOfSteps(pool, scope.projectId, filters), straddlingUsers(pool, scope)]);
  if (!summarized(kinds)) return { keyed, sources: [eventSource(scope, keyed)] };
  const summaries = summarySource(scope, kinds, straddling);
  return { keyed, sources: straddling.length === 0 ? [summaries] : [summaries, eventSource(scope, keyed, straddling)] };
}

/**
 * Users per step in one mode. Closed funnels come back as users per steps reached, per order
 * pattern (closedStepsFromOrder) and, for the few whose first and last step times cannot settle
 * it, one by one: their events are read and walked here. Each source counts users the other does
 * not have, so their counts add up.
 */
async function countUsers(
  pool: DatabasePool,
  scope: FunnelScope,
  filters: readonly StepFilter[],
  keyed: readonly KeyedStepFilter[],
  sources: readonly StepSource[],
  mode: FunnelMode,
  breakdown?: FunnelBreakdown,
): Promise<Counts> {
  const n = filters.length;
  const disjoint = disjointSteps(filters);
  const queries = sources.map((source) => (mode === "open" ? openCountsQuery(source, n, breakdown) : closedCountsQuery(source, n, breakdown, disjoint)));
  const counts: Counts = new Map();
  // (user, value) pairs to walk, keyed as JSON; the value is the pair's user key.
  const unresolved = new Map<string, number>();
  for (const rows of await Promise.all(queries.map((query) => analyticsRows(pool, query, countsRow)))) {
    for (const row of rows) {
      if (row.unresolved_user !== null) {
        unresolved.set(JSON.stringify([row.unresolved_user, row.value]), row.unresolved_user);
        add(counts, n, row.value, 0, 0);
      } else {
        add(counts, n, row.value, row.pattern === null ? row.reached : closedStepsFromOrder(row.pattern, -row.reached), row.users);
      }
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
  const { keyed, sources } = scope.appIds.length === 0 ? { keyed: [], sources: [] } : await sourcesOf(pool, scope, filters);
  const [overall, grouped] = await Promise.all([
    scope.appIds.length === 0 ? none : countUsers(pool, scope, filters, keyed, sources, mode),
    breakdown === undefined || scope.appIds.length === 0 ? none : countUsers(pool, scope, filters, keyed, sources, mode, breakdown),
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
