import { sql, type FragmentSqlToken } from "slonik";
import { z } from "zod";
import type { DataMode, TimeWindow } from "../../domain/analytics/window.ts";
import type { FunnelBreakdown, StepFilter } from "../../domain/funnels/analytics.ts";
import { and, dataModeCondition, iso } from "../derived-events/sql.ts";

/** Where a funnel query reads: one project's active apps, a retained window, filters. */
export type FunnelScope = TimeWindow & {
  projectId: string;
  appIds: readonly string[];
  dataMode: DataMode;
  appVersion?: string;
  environment?: string;
};

/** Events of users in the scope (funnels count users, so events without one never count). */
function scopeConditions(scope: FunnelScope, alias: string): FragmentSqlToken[] {
  const t = sql.identifier([alias]);
  const conditions = [
    sql.fragment`${t}.project_id = ${scope.projectId}`,
    sql.fragment`${t}.app_id = any(${sql.array(scope.appIds, "uuid")})`,
    sql.fragment`${t}."timestamp" >= ${iso(scope.since)} and ${t}."timestamp" <= ${iso(scope.until)}`,
    sql.fragment`${t}.user_id is not null`,
    dataModeCondition(scope.dataMode, sql.fragment`${t}.is_dev`),
  ];
  if (scope.appVersion !== undefined) conditions.push(sql.fragment`${t}.app_version = ${scope.appVersion}`);
  if (scope.environment !== undefined) conditions.push(sql.fragment`${t}.environment = ${scope.environment}`);
  return conditions;
}

/** An event matches a step when it has the step's step_name and screen_name (those given). */
function matches(step: StepFilter, alias: string): FragmentSqlToken {
  const t = sql.identifier([alias]);
  const parts: FragmentSqlToken[] = [];
  if (step.step_name !== undefined) parts.push(sql.fragment`${t}.step_name = ${step.step_name}`);
  if (step.screen_name !== undefined) parts.push(sql.fragment`${t}.screen_name = ${step.screen_name}`);
  return sql.fragment`(${and(parts)})`;
}

/**
 * Events that can match any step, written so the planner walks the (project, step_name, time)
 * and (project, screen_name, time) indexes: the step names, or the screens of steps without one.
 */
function anyStep(steps: readonly StepFilter[]): FragmentSqlToken {
  const names = [...new Set(steps.flatMap((step) => (step.step_name === undefined ? [] : [step.step_name])))];
  const screens = [...new Set(steps.flatMap((step) => (step.step_name === undefined && step.screen_name !== undefined ? [step.screen_name] : [])))];
  const parts: FragmentSqlToken[] = [];
  if (names.length > 0) parts.push(sql.fragment`e.step_name = any(${sql.array(names, "text")})`);
  if (screens.length > 0) parts.push(sql.fragment`e.screen_name = any(${sql.array(screens, "text")})`);
  return sql.fragment`(${sql.join(parts, sql.fragment` or `)})`;
}

const breakdownColumn = (breakdown: FunnelBreakdown | undefined, alias: string) =>
  breakdown === undefined ? sql.fragment`null::text` : sql.fragment`${sql.identifier([alias, breakdown])}`;

const id = (name: string) => sql.identifier([name]);

/** The highest step an event matches, null when none (an event may match several). */
function highestStep(steps: readonly StepFilter[]): FragmentSqlToken {
  const cases = steps.map((step, k) => sql.fragment`case when ${matches(step, "e")} then ${k}::int end`);
  return sql.fragment`greatest(${sql.join(cases, sql.fragment`, `)})`;
}

/**
 * Open funnels, one pass: per user (and breakdown value) the highest step they did in the window.
 * Rows are (value, reached, users) with `reached` = highest step + 1; a user counts at every step
 * below `reached`, so counts never grow from one step to the next.
 */
export function openCountsQuery(scope: FunnelScope, steps: readonly StepFilter[], breakdown?: FunnelBreakdown) {
  return sql.fragment`
    select u.value, null::text as unresolved_user, u.reached + 1 as reached, count(*) as users
      from (
        select e.user_id, ${breakdownColumn(breakdown, "e")} as value, max(${highestStep(steps)}) as reached
          from funnel_events e where ${and([...scopeConditions(scope, "e"), anyStep(steps)])}
         group by 1, 2
      ) u
     where u.reached is not null
     group by 1, 2, 3`;
}

/**
 * Closed funnels, one pass. t0 is a user's first step-0 time and t(k) the first step-k time
 * strictly after t(k-1). While every step's first time m(k) follows the previous one, t(k) is m(k):
 * a user reaches step k exactly when m(0) < m(1) < ... < m(k). Where that breaks, at step k with
 * m(k) <= m(k-1), the user has no later step-k event when even the last one, x(k), is not after
 * m(k-1); only if it is (the step happened both before and after) are the times in between
 * needed. Such users are grouped one per row in `unresolved_user` for the caller to walk their
 * events; every condition refers to m and x only, so the expressions grow linearly with the steps.
 */
export function closedCountsQuery(scope: FunnelScope, steps: readonly StepFilter[], breakdown?: FunnelBreakdown) {
  const times = steps.flatMap((step, k) => {
    const first = sql.fragment`min(e."timestamp") filter (where ${matches(step, "e")}) as ${id(`m${k}`)}`;
    return k === 0 ? [first] : [first, sql.fragment`max(e."timestamp") filter (where ${matches(step, "e")}) as ${id(`x${k}`)}`];
  });
  const m = (k: number, alias = "u") => sql.fragment`${sql.identifier([alias, `m${k}`])}`;
  const x = (k: number) => sql.fragment`${sql.identifier(["r", `x${k}`])}`;
  const breaks = steps.slice(1).map((_, index) => sql.fragment`when not coalesce(${m(index + 1)} > ${m(index)}, false) then ${index + 1}::int`);
  const reached = sql.fragment`case when ${m(0)} is null then 0 ${sql.join(breaks, sql.fragment` `)} else ${steps.length}::int end`;
  const interleaved = steps.slice(1).map((_, index) => sql.fragment`when ${index + 1}::int then coalesce(${x(index + 1)} > ${m(index, "r")}, false)`);
  const unresolved = steps.length === 1 ? sql.fragment`false` : sql.fragment`case r.reached ${sql.join(interleaved, sql.fragment` `)} else false end`;
  return sql.fragment`
    select r.value, case when ${unresolved} then r.user_id end as unresolved_user, r.reached, count(*) as users
      from (
        select u.*, ${reached} as reached
          from (
            select e.user_id, ${breakdownColumn(breakdown, "e")} as value, ${sql.join(times, sql.fragment`, `)}
              from funnel_events e where ${and([...scopeConditions(scope, "e"), anyStep(steps)])}
             group by 1, 2
          ) u
      ) r
     where r.reached > 0
     group by 1, 2, 3`;
}

/** A row of the counts queries: users who reached exactly `reached` steps, or one unresolved user. */
export const countsRow = z.object({ value: z.string().nullable(), unresolved_user: z.string().nullable(), reached: z.number(), users: z.number() });

export const userEvents = z.object({
  user_id: z.string(),
  value: z.string().nullable(),
  events: z.array(z.tuple([z.string(), z.string().nullable(), z.number()])),
});

/**
 * Every step event in the scope of the given users, for walking their funnels one by one: one
 * (app_id, user_id, timestamp) index walk per user, in that user's partition only. The users are
 * few and the events many; `offset 0` keeps the planner from turning the walks into a hash join
 * over every event of the window.
 */
export function stepEventsOfUsersQuery(scope: FunnelScope, steps: readonly StepFilter[], userIds: readonly string[], breakdown?: FunnelBreakdown) {
  return sql.fragment`
    select x.user_id, ${breakdownColumn(breakdown, "e")} as value,
           json_agg(json_build_array(e.step_name, e.screen_name, (extract(epoch from e."timestamp") * 1000)::float8)) as events
      from unnest(${sql.array(userIds, "text")}) as x(user_id)
      cross join lateral (
        select e.* from funnel_events e where ${and([...scopeConditions(scope, "e"), anyStep(steps), sql.fragment`e.user_id = x.user_id`])}
        offset 0
      ) e
     group by 1, 2`;
}

/**
 * For the completions count: distinct users who did the last step, and who did the first or the
 * last step, in the window.
 */
export function completionsQuery(scope: FunnelScope, steps: readonly StepFilter[]) {
  const first = matches(steps[0]!, "e");
  const last = matches(steps[steps.length - 1]!, "e");
  return sql.type(z.object({ count: z.number(), started: z.number() }))`
    select count(distinct e.user_id) filter (where ${last}) as count,
           count(distinct e.user_id) filter (where ${first} or ${last}) as started
      from funnel_events e where ${and([...scopeConditions(scope, "e"), anyStep([steps[0]!, steps[steps.length - 1]!])])}`;
}
