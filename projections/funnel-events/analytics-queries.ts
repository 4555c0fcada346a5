import { sql, type FragmentSqlToken } from "slonik";
import { z } from "zod";
import type { DataMode, TimeWindow } from "../../domain/analytics/window.ts";
import type { FunnelBreakdown, FunnelMode, StepFilter } from "../../domain/funnels/analytics.ts";
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
 * Open funnels, one pass: per user (and breakdown value) the highest step they did in the
 * window; a user counts at every step up to it, so counts never grow from one step to the next.
 */
export function openCountsQuery(scope: FunnelScope, steps: readonly StepFilter[], breakdown?: FunnelBreakdown) {
  const counts = steps.map((_, k) => sql.fragment`count(*) filter (where u.reached >= ${k}::int) as ${id(`c${k}`)}`);
  return sql.type(funnelCountsRow)`
    select u.value, null::text as unresolved_user, ${sql.join(counts, sql.fragment`, `)}
      from (
        select e.user_id, ${breakdownColumn(breakdown, "e")} as value, max(${highestStep(steps)}) as reached
          from funnel_events e where ${and([...scopeConditions(scope, "e"), anyStep(steps)])}
         group by 1, 2
      ) u
     group by u.value`;
}

/**
 * Closed funnels, one pass: t0 is a user's first step-0 time, t(k) the first step-k time
 * strictly after t(k-1). From each step's first and last time alone that is decided for nearly
 * every user: the first time when it follows t(k-1), none when even the last does not. Only when
 * the step happened both before and after t(k-1) are the times in between needed: such users are
 * left out of the counts and returned one per row in `unresolved_user`, for the caller to walk
 * their events. (Grouping by them rather than collecting them with array_agg keeps the whole
 * query parallel: Postgres 15 cannot split array_agg across workers.)
 */
export function closedCountsQuery(scope: FunnelScope, steps: readonly StepFilter[], breakdown?: FunnelBreakdown) {
  const times = steps.flatMap((step, k) => {
    const first = sql.fragment`min(e."timestamp") filter (where ${matches(step, "e")}) as ${id(`m${k}`)}`;
    return k === 0 ? [first] : [first, sql.fragment`max(e."timestamp") filter (where ${matches(step, "e")}) as ${id(`x${k}`)}`];
  });
  const chain = steps.slice(1).map((_, index) => {
    const k = index + 1;
    const [previous, first, last] = [sql.fragment`${id(`c${k - 1}`)}.t`, sql.fragment`u.${id(`m${k}`)}`, sql.fragment`u.${id(`x${k}`)}`];
    return sql.fragment`
      cross join lateral (
        select case when ${first} > ${previous} then ${first} end as t,
               ${id(`c${k - 1}`)}.unresolved or coalesce(${first} <= ${previous} and ${last} > ${previous}, false) as unresolved
      ) ${id(`c${k}`)}`;
  });
  const final = id(`c${steps.length - 1}`);
  const counts = steps.map((_, k) => sql.fragment`count(${id(`c${k}`)}.t) filter (where not ${final}.unresolved) as ${id(`c${k}`)}`);
  return sql.type(funnelCountsRow)`
    select u.value, case when ${final}.unresolved then u.user_id end as unresolved_user, ${sql.join(counts, sql.fragment`, `)}
      from (
        select e.user_id, ${breakdownColumn(breakdown, "e")} as value, ${sql.join(times, sql.fragment`, `)}
          from funnel_events e where ${and([...scopeConditions(scope, "e"), anyStep(steps)])}
         group by 1, 2
      ) u
      cross join lateral (select u.m0 as t, false as unresolved) c0
      ${sql.join(chain, sql.fragment` `)}
     group by 1, 2`;
}

export const funnelCountsRow = z.object({ value: z.string().nullable(), unresolved_user: z.string().nullable() }).catchall(z.unknown());

const stepEventRow = z.object({ user_id: z.string(), value: z.string().nullable(), step_name: z.string(), screen_name: z.string().nullable(), time: z.number() });

/** Every step event in the scope of the given users, for walking their funnels one by one. */
export function stepEventsOfUsersQuery(scope: FunnelScope, steps: readonly StepFilter[], userIds: readonly string[], breakdown?: FunnelBreakdown) {
  return sql.type(stepEventRow)`
    select e.user_id, ${breakdownColumn(breakdown, "e")} as value, e.step_name, e.screen_name,
           (extract(epoch from e."timestamp") * 1000)::float8 as time
      from funnel_events e
     where ${and([...scopeConditions(scope, "e"), anyStep(steps), sql.fragment`e.user_id = any(${sql.array(userIds, "text")})`])}`;
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
