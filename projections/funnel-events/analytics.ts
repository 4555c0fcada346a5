import type { DatabasePool } from "slonik";
import type { z } from "zod";
import { orderBreakdown, stepAnalytics, type FunnelBreakdown, type FunnelMode, type StepAnalytics, type StepFilter } from "../../domain/funnels/analytics.ts";
import { closedStepsFromOrder, closedStepsReached, disjointSteps, type StepEvent } from "../../domain/funnels/walk.ts";
import { inOneSnapshot, type Reader } from "../derived-events/snapshot.ts";
import { analyticsRead, analyticsRows } from "../derived-events/sql.ts";
import { completionsQuery, countsRow, openCountsQuery, stepEventsOfUsersQuery, userEvents, type FunnelScope } from "./analytics-queries.ts";
import { closedCountsQuery } from "./closed-query.ts";
import { dayVersions, innerDays, type FunnelDayAnswers } from "./day-answers.ts";
import { keyedFilters, type KeyedStepFilter } from "./keys.ts";
import { aloneRowsOfDays, edgeDays, eventSource, summarySource, type StepSource } from "./step-source.ts";
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

/** The alone rows of the days wholly inside the window, counted day by day (FunnelDayAnswers). */
type ApartDays = { days: string[]; versions: Map<string, string>; source: (days: readonly string[]) => StepSource; answers: FunnelDayAnswers };

/**
 * Where a funnel is counted from: the per-user step summaries, and the events of the users whose
 * summaries straddle an end of the window; or only the events, for a funnel matching many kinds
 * or kinds the summaries leave out. With `answers`, the alone rows of the days inside the window
 * are counted apart, day by day.
 * The steps' keys, their kinds, the straddling users and the days' versions are lookups sent at once.
 */
async function sourcesOf(
  reader: Reader,
  scope: FunnelScope,
  filters: readonly StepFilter[],
  answers?: FunnelDayAnswers,
): Promise<{ keyed: KeyedStepFilter[]; sources: StepSource[]; apart?: ApartDays }> {
  const days = answers === undefined ? [] : innerDays(scope);
  const [keyed, kinds, straddling, versions] = await Promise.all([
    reader.transaction((tx) => keyedFilters(tx, filters)),
    reader.transaction((tx) => kindsOfSteps(tx, scope.projectId, filters)),
    reader.transaction((tx) => straddlingUsers(tx, scope)),
    days.length === 0 ? new Map<string, string>() : reader.transaction((tx) => dayVersions(tx, scope.projectId, days)),
  ]);
  if (!summarized(kinds)) return { keyed, sources: [eventSource(scope, keyed)] };
  const apart = answers !== undefined && days.length > 0;
  const summaries = summarySource(scope, kinds, straddling, apart ? edgeDays(scope) : undefined);
  const sources = straddling.length === 0 ? [summaries] : [summaries, eventSource(scope, keyed, straddling)];
  if (!apart) return { keyed, sources };
  return { keyed, sources, apart: { days, versions, source: (of) => aloneRowsOfDays(scope, kinds, of), answers } };
}

/** Users reaching each step, and the (user, value) pairs still to walk, keyed as JSON, to their user key. */
type Tally = { counts: Counts; unresolved: Map<string, number>; breakdown?: FunnelBreakdown };

const tallyOf = (breakdown?: FunnelBreakdown): Tally => ({ counts: new Map(), unresolved: new Map(), breakdown });

/** Adds a counts row to `tally`, under `value`. */
function count(tally: Tally, n: number, row: z.infer<typeof countsRow>, value: string | null): void {
  if (row.unresolved_user !== null) {
    tally.unresolved.set(JSON.stringify([row.unresolved_user, value]), row.unresolved_user);
    add(tally.counts, n, value, 0, 0);
  } else {
    add(tally.counts, n, value, row.pattern === null ? row.reached : closedStepsFromOrder(row.pattern, -row.reached), row.users);
  }
}

/** Walks the events of the tally's unresolved users (closedStepsReached) and counts each at the steps they reach. */
async function walk(pool: Reader, scope: FunnelScope, filters: readonly StepFilter[], keyed: readonly KeyedStepFilter[], tally: Tally): Promise<void> {
  if (tally.unresolved.size === 0) return;
  const users = [...new Set(tally.unresolved.values())];
  for (const { user_key, value, events } of await analyticsRows(pool, stepEventsOfUsersQuery(scope, keyed, users, tally.breakdown), userEvents)) {
    if (!tally.unresolved.has(JSON.stringify([user_key, value]))) continue;
    const walked = events.map(([step_name, screen_name, time]): StepEvent => ({ step_name, screen_name, time }));
    add(tally.counts, filters.length, value, closedStepsReached(walked, filters), 1);
  }
}

/**
 * Users per step in one mode, overall and, when asked, per breakdown value. Closed funnels come
 * back as users per steps reached, per order pattern (closedStepsFromOrder) and, for the few
 * whose first and last step times cannot settle it, one by one: their events are read and walked
 * here. Each source counts users the other does not have, so their counts add up.
 *
 * With a breakdown, a user counted from a row alone in its project (StepSource.alone) has one
 * value, and their outcome is the same overall: the broken-down query counts them for both, and
 * the overall query reads only the users it groups.
 */
async function countUsers(
  pool: Reader,
  scope: FunnelScope,
  filters: readonly StepFilter[],
  keyed: readonly KeyedStepFilter[],
  sources: readonly StepSource[],
  mode: FunnelMode,
  breakdown?: FunnelBreakdown,
  apart?: ApartDays,
): Promise<{ overall: Counts; grouped: Counts }> {
  const n = filters.length;
  const disjoint = disjointSteps(filters);
  const query = (source: StepSource, by?: FunnelBreakdown) => (mode === "open" ? openCountsQuery(source, n, by) : closedCountsQuery(source, n, by, disjoint));
  const overall = tallyOf();
  const grouped = tallyOf(breakdown);
  const queries = sources.flatMap((source) =>
    breakdown === undefined
      ? [{ query: query(source), tally: overall }]
      : [{ query: query({ ...source, alone: undefined }), tally: overall }, { query: query(source, breakdown), tally: grouped }],
  );
  // The alone rows of the days apart are counted like those of a broken-down query: they give
  // their value, and the same outcome overall.
  const [answers, apartRows] = await Promise.all([
    Promise.all(queries.map(({ query }) => analyticsRows(pool, query, countsRow))),
    apart === undefined ? [] : apart.answers.rowsOf(pool, apart.days, apart.versions, (days) => query(apart.source(days), breakdown)),
  ]);
  answers.forEach((rows, i) => {
    const { tally } = queries[i]!;
    for (const row of rows) {
      count(tally, n, row, row.value);
      if (tally === grouped && row.alone) count(overall, n, row, null);
    }
  });
  for (const row of apartRows) {
    if (breakdown === undefined) count(overall, n, row, null);
    else {
      count(grouped, n, row, row.value);
      count(overall, n, row, null);
    }
  }
  await Promise.all([walk(pool, scope, filters, keyed, overall), walk(pool, scope, filters, keyed, grouped)]);
  return { overall: overall.counts, grouped: grouped.counts };
}

/**
 * Step analytics of a funnel over the scope, with a breakdown by environment or app version when
 * asked. `answers` keeps the per-day counts of users alone in their project for the next answer.
 */
export async function funnelAnalytics(
  pool: DatabasePool,
  scope: FunnelScope,
  funnel: { name: string; steps: readonly FunnelStepDefinition[] },
  mode: FunnelMode,
  breakdown?: FunnelBreakdown,
  answers?: FunnelDayAnswers,
): Promise<FunnelAnalytics> {
  const filters = funnel.steps.map((step) => step.event_filter);
  const names = funnel.steps.map((step) => step.name);
  const none: Counts = new Map();
  // Every statement of one answer reads one snapshot: the straddling users looked up and the
  // sources counted in parallel then agree, with no projector commit between them.
  const { overall, grouped } =
    scope.appIds.length === 0
      ? { overall: none, grouped: none }
      : await inOneSnapshot(pool, async (reader) => {
          const { keyed, sources, apart } = await sourcesOf(reader, scope, filters, answers);
          return countUsers(reader, scope, filters, keyed, sources, mode, breakdown, apart);
        });
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
