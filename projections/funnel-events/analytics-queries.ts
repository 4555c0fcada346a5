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
export function scopeConditions(scope: FunnelScope, alias: string): FragmentSqlToken[] {
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
export function matches(step: StepFilter, alias: string): FragmentSqlToken {
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
export function anyStep(steps: readonly StepFilter[]): FragmentSqlToken {
  const names = [...new Set(steps.flatMap((step) => (step.step_name === undefined ? [] : [step.step_name])))];
  const screens = [...new Set(steps.flatMap((step) => (step.step_name === undefined && step.screen_name !== undefined ? [step.screen_name] : [])))];
  const parts: FragmentSqlToken[] = [];
  if (names.length > 0) parts.push(sql.fragment`e.step_name = any(${sql.array(names, "text")})`);
  if (screens.length > 0) parts.push(sql.fragment`e.screen_name = any(${sql.array(screens, "text")})`);
  return sql.fragment`(${sql.join(parts, sql.fragment` or `)})`;
}

const breakdownColumn = (breakdown: FunnelBreakdown | undefined, alias: string) =>
  breakdown === undefined ? sql.fragment`null::text` : sql.fragment`${sql.identifier([alias, breakdown])}`;

/**
 * Grouping per user and breakdown value: the value column, the grouping key and the value as
 * the outer query reads it. Without a breakdown the key is the user alone, a narrower hash key.
 */
export function perUser(breakdown: FunnelBreakdown | undefined) {
  if (breakdown === undefined) return { column: sql.fragment`e.user_id`, groups: sql.fragment`1`, value: sql.fragment`null::text` };
  return { column: sql.fragment`e.user_id, ${sql.identifier(["e", breakdown])} as value`, groups: sql.fragment`1, 2`, value: sql.fragment`u.value` };
}

/**
 * Open funnels, one pass: per user (and breakdown value) the highest step they did in the window.
 * Rows are (value, reached, users) with `reached` = highest step + 1; a user counts at every step
 * below `reached`, so counts never grow from one step to the next. The highest matching step is
 * found from the top down, stopping at the first match (an event may match several).
 */
export function openCountsQuery(scope: FunnelScope, steps: readonly StepFilter[], breakdown?: FunnelBreakdown) {
  const cases = steps.map((step, k) => sql.fragment`when ${matches(step, "e")} then ${k + 1}::int`).reverse();
  const group = perUser(breakdown);
  return sql.fragment`
    select ${group.value} as value, u.reached, null::text as pattern, null::text as unresolved_user, count(*) as users
      from (
        select ${group.column}, max(case ${sql.join(cases, sql.fragment` `)} end) as reached
          from funnel_events e where ${and([...scopeConditions(scope, "e"), anyStep(steps)])}
         group by ${group.groups}
      ) u
     where u.reached is not null
     group by 1, 2`;
}

/** A row of the counts queries: users who reached `reached` steps, a pattern of them, or one user to walk. */
export const countsRow = z.object({
  value: z.string().nullable(),
  reached: z.number(),
  pattern: z.string().nullable(),
  unresolved_user: z.string().nullable(),
  users: z.number(),
});

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
