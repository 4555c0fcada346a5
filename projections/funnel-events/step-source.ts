import { sql, type FragmentSqlToken } from "slonik";
import { and, dataModeCondition, iso } from "../derived-events/sql.ts";
import { anyStep, matches, scopeConditions, type FunnelScope } from "./analytics-queries.ts";
import type { KeyedStepFilter } from "./keys.ts";

/**
 * What the counts queries group per user (and breakdown value), aliased `e`: step events, or
 * per-user step summaries. Both give the same per-user times, so one query shape serves both.
 */
export type StepSource = {
  /** `<table> e where <conditions>`. */
  rows: FragmentSqlToken;
  /** A row holds an event of step k. */
  has: (k: number) => FragmentSqlToken;
  /** Aggregates over a user's rows: the first and last time of step k. */
  first: (k: number) => FragmentSqlToken;
  last: (k: number) => FragmentSqlToken;
  /** Aggregate over a user's rows, for steps no event can match twice: events of `middle` steps, at least. */
  middle: (middle: readonly number[], ends: readonly number[]) => FragmentSqlToken;
  /**
   * Rows that are all their user has in the scope (summary rows marked `alone`), read one by one
   * instead of grouped: `rows` then leaves them out. The functions give a row's own values, what
   * the aggregates give over a user's rows.
   */
  alone?: Omit<StepSource, "alone"> & {
    /** A label of each row's day, for answers counted day by day (aloneRowsOfDays); none otherwise. */
    day?: FragmentSqlToken;
  };
};

/**
 * Step events in the scope. `only` narrows them to some users (those the summaries cannot
 * answer for). `middle` counts every event of neither end step: at least the middle steps' events.
 */
export function eventSource(scope: FunnelScope, steps: readonly KeyedStepFilter[], only?: readonly number[]): StepSource {
  const conditions = [...scopeConditions(scope, "e"), anyStep(steps)];
  if (only !== undefined) conditions.push(sql.fragment`e.user_key = any(${sql.array(only, "int4")})`);
  const match = (k: number) => matches(steps[k]!, "e");
  return {
    rows: sql.fragment`funnel_events e where ${and(conditions)}`,
    has: match,
    first: (k) => sql.fragment`min(e."timestamp") filter (where ${match(k)})`,
    last: (k) => sql.fragment`max(e."timestamp") filter (where ${match(k)})`,
    middle: (_middle, ends) => sql.fragment`count(*) filter (where (${sql.join(ends.map(match), sql.fragment` or `)}) is not true)`,
  };
}

/** The UTC day of a time, as `funnel_user_days.day`. */
export const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** The window's first and last UTC day (one, when it lies within a day): the only days whose rows can straddle an end. */
export const edgeDays = (scope: FunnelScope): string[] => [...new Set([dayOf(scope.since), dayOf(scope.until)])];

/** `e.<array>[kind]`: the row's value for a kind, null when it has none. */
const at = (array: string, kind: number) => sql.fragment`${sql.identifier(["e", array])}[${kind}::int]`;

/** A summary row holds an event of one of `kinds`. */
export function holdsAny(kinds: readonly number[]): FragmentSqlToken {
  if (kinds.length === 0) return sql.fragment`false`;
  return sql.fragment`(${sql.join(kinds.map((kind) => sql.fragment`${at("counts", kind)} is not null`), sql.fragment` or `)})`;
}

/**
 * Summary rows in the scope: a row counts when it lies inside the window (first_at and last_at
 * within it). Rows of the window's first and last day may straddle an end; their users are
 * `excluded` here and counted from their events (eventSource with `only`). `kinds[k]` are the
 * project's kinds step k matches; a row keeps kind i's values at index i of its arrays.
 * `aloneDays`: the only days whose alone rows are read here, when the others are counted day by
 * day (aloneRowsOfDays); named, not left out, so the (project, day) index finds them.
 */
export function summarySource(scope: FunnelScope, kinds: readonly (readonly number[])[], excluded: readonly number[], aloneDays?: readonly string[]): StepSource {
  const conditions = [...summaryScope(scope), holdsAny([...new Set(kinds.flat())])];
  if (excluded.length > 0) conditions.push(sql.fragment`not (e.user_key = any(${sql.array(excluded, "int4")}))`);
  conditions.push(sql.fragment`e.first_at >= ${iso(scope.since)} and e.last_at <= ${iso(scope.until)}`);
  const alone = aloneDays === undefined ? conditions : [...conditions, sql.fragment`e.day = any(${sql.array(aloneDays, "date")})`];
  return {
    rows: sql.fragment`funnel_user_days e where ${and([...conditions, sql.fragment`not e.alone`])}`,
    ...perUserSummary(kinds),
    alone: aloneSummary(kinds, alone),
  };
}

/**
 * The rows alone in their project of days wholly inside a window (every row of theirs lies
 * inside it), labelled by day, as the `alone` part of a source with no other rows: what
 * summarySource leaves to them. Nothing of the window but the days enters the query, so a day's
 * answer holds for any window around it.
 */
export function aloneRowsOfDays(scope: FunnelScope, kinds: readonly (readonly number[])[], days: readonly string[]): StepSource {
  const conditions = [...summaryScope(scope, days), holdsAny([...new Set(kinds.flat())])];
  return {
    rows: sql.fragment`funnel_user_days e where false`,
    ...perUserSummary(kinds),
    alone: { ...aloneSummary(kinds, conditions), day: sql.fragment`to_char(e.day, 'YYYY-MM-DD')` },
  };
}

/** A step's values over the kinds it matches: a row's own (`pick` least or greatest skips nulls). */
function overKinds(kinds: readonly (readonly number[])[]) {
  return (k: number, array: string, pick: FragmentSqlToken) =>
    kinds[k]!.length === 0 ? sql.fragment`null::timestamptz` : sql.fragment`${pick}(${sql.join(kinds[k]!.map((kind) => at(array, kind)), sql.fragment`, `)})`;
}

/** A row's events of the kinds of `steps`. */
function middleOf(kinds: readonly (readonly number[])[], steps: readonly number[]) {
  const counts = steps.flatMap((k) => kinds[k]!).map((kind) => sql.fragment`coalesce(${at("counts", kind)}, 0)`);
  return counts.length === 0 ? sql.fragment`0` : sql.fragment`(${sql.join(counts, sql.fragment` + `)})`;
}

/** The aggregates over a user's summary rows. */
function perUserSummary(kinds: readonly (readonly number[])[]): Omit<StepSource, "rows" | "alone"> {
  const over = overKinds(kinds);
  return {
    has: (k) => holdsAny(kinds[k]!),
    first: (k) => sql.fragment`min(${over(k, "firsts", sql.fragment`least`)})`,
    last: (k) => sql.fragment`max(${over(k, "lasts", sql.fragment`greatest`)})`,
    middle: (steps) => sql.fragment`sum(${middleOf(kinds, steps)})`,
  };
}

/** Summary rows alone in their project that meet `conditions`, each its user's answer: a row's own values. */
function aloneSummary(kinds: readonly (readonly number[])[], conditions: readonly FragmentSqlToken[]): Omit<StepSource, "alone"> {
  const over = overKinds(kinds);
  // A user's rows in the scope are all their rows or fewer: a row alone in its project is alone here too.
  return {
    rows: sql.fragment`funnel_user_days e where ${and([...conditions, sql.fragment`e.alone`])}`,
    has: (k) => holdsAny(kinds[k]!),
    first: (k) => over(k, "firsts", sql.fragment`least`),
    last: (k) => over(k, "lasts", sql.fragment`greatest`),
    // The type of the sum above: a union of equal column types is planned as one set of rows.
    middle: (steps) => sql.fragment`${middleOf(kinds, steps)}::bigint`,
  };
}

/** Summary rows of the scope's project, apps, days (the window's, or `days`) and filters (not yet its exact window). */
export function summaryScope(scope: FunnelScope, days?: readonly string[]): FragmentSqlToken[] {
  const conditions = [
    sql.fragment`e.project_id = ${scope.projectId}`,
    sql.fragment`e.app_id = any(${sql.array(scope.appIds, "uuid")})`,
    days === undefined
      ? sql.fragment`e.day >= ${dayOf(scope.since)}::date and e.day <= ${dayOf(scope.until)}::date`
      : sql.fragment`e.day = any(${sql.array(days, "date")})`,
    dataModeCondition(scope.dataMode, sql.fragment`e.is_dev`),
  ];
  if (scope.appVersion !== undefined) conditions.push(sql.fragment`e.app_version = ${scope.appVersion}`);
  if (scope.environment !== undefined) conditions.push(sql.fragment`e.environment = ${scope.environment}`);
  return conditions;
}
