import { sql, type FragmentSqlToken } from "slonik";
import { z } from "zod";
import type { DataMode, TimeWindow } from "../../domain/analytics/window.ts";
import type { FunnelBreakdown } from "../../domain/funnels/analytics.ts";
import { and, dataModeCondition, iso } from "../derived-events/sql.ts";
import type { KeyedStepFilter } from "./keys.ts";
import type { StepSource } from "./step-source.ts";

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
    sql.fragment`${t}.user_key is not null`,
    dataModeCondition(scope.dataMode, sql.fragment`${t}.is_dev`),
  ];
  if (scope.appVersion !== undefined) conditions.push(sql.fragment`${t}.app_version = ${scope.appVersion}`);
  if (scope.environment !== undefined) conditions.push(sql.fragment`${t}.environment = ${scope.environment}`);
  return conditions;
}

/** `column = key`, or false for a name without a key (no event carries it). */
const keyIs = (column: FragmentSqlToken, key: number | null) => (key === null ? sql.fragment`false` : sql.fragment`${column} = ${key}::int`);

/** An event matches a step when it has the step's step name and screen name (those given). */
export function matches(step: KeyedStepFilter, alias: string): FragmentSqlToken {
  const t = sql.identifier([alias]);
  const parts: FragmentSqlToken[] = [];
  if (step.step_key !== undefined) parts.push(keyIs(sql.fragment`${t}.step_key`, step.step_key));
  if (step.screen_key !== undefined) parts.push(keyIs(sql.fragment`${t}.screen_key`, step.screen_key));
  return sql.fragment`(${and(parts)})`;
}

/**
 * Events that can match any step, written so the planner walks the (project, step_key, time)
 * and (project, screen_key, time) indexes: the step names, or the screens of steps without one.
 * Names without a key match nothing and are left out.
 */
export function anyStep(steps: readonly KeyedStepFilter[]): FragmentSqlToken {
  const known = (key: number | null | undefined) => (key === undefined || key === null ? [] : [key]);
  const names = [...new Set(steps.flatMap((step) => known(step.step_key)))];
  const screens = [...new Set(steps.flatMap((step) => (step.step_key === undefined ? known(step.screen_key) : [])))];
  const parts: FragmentSqlToken[] = [];
  if (names.length > 0) parts.push(sql.fragment`e.step_key = any(${sql.array(names, "int4")})`);
  if (screens.length > 0) parts.push(sql.fragment`e.screen_key = any(${sql.array(screens, "int4")})`);
  return parts.length === 0 ? sql.fragment`false` : sql.fragment`(${sql.join(parts, sql.fragment` or `)})`;
}

export const breakdownColumn = (breakdown: FunnelBreakdown | undefined, alias: string) =>
  breakdown === undefined ? sql.fragment`null::text` : sql.fragment`${sql.identifier([alias, breakdown])}`;

/**
 * Grouping per user and breakdown value: the value column, the grouping key and the value as
 * the outer query reads it. Without a breakdown the key is the user alone, a narrower hash key.
 */
export function perUser(breakdown: FunnelBreakdown | undefined) {
  if (breakdown === undefined) return { column: sql.fragment`e.user_key`, groups: sql.fragment`1`, value: sql.fragment`null::text` };
  return { column: sql.fragment`e.user_key, ${sql.identifier(["e", breakdown])} as value`, groups: sql.fragment`1, 2`, value: sql.fragment`u.value` };
}

/**
 * Open funnels, one pass: per user (and breakdown value) the highest step they did in the window.
 * Rows are (value, reached, users) with `reached` = highest step + 1; a user counts at every step
 * below `reached`, so counts never grow from one step to the next. The highest matching step is
 * found from the top down, stopping at the first match (an event may match several). Users of
 * the source's `alone` rows are counted from their row, without grouping.
 */
export function openCountsQuery(source: StepSource, steps: number, breakdown?: FunnelBreakdown) {
  const reached = (of: Pick<StepSource, "has">) =>
    sql.fragment`case ${sql.join(Array.from({ length: steps }, (_, k) => sql.fragment`when ${of.has(k)} then ${k + 1}::int`).reverse(), sql.fragment` `)} end`;
  const group = perUser(breakdown);
  const grouped = sql.fragment`
        select ${group.value} as value, u.reached, false as alone, null::text as day, count(*) as users
          from (
            select ${group.column}, max(${reached(source)}) as reached
              from ${source.rows}
             group by ${group.groups}
          ) u
         group by 1, 2`;
  const counted = source.alone === undefined ? grouped : sql.fragment`${grouped}
         union all
        select ${breakdownColumn(breakdown, "e")} as value, ${reached(source.alone)} as reached, true as alone, ${dayLabel(source.alone)} as day, count(*) as users
          from ${source.alone.rows}
         group by 1, 2, 4`;
  return sql.fragment`
    select c.value, c.reached, null::text as pattern, null::int as unresolved_user, c.alone, c.day, sum(c.users)::int as users
      from (${counted}) c
     where c.reached is not null
     group by 1, 2, 5, 6`;
}

/** The day label of alone rows counted day by day, null otherwise. */
export const dayLabel = (alone: NonNullable<StepSource["alone"]>) => alone.day ?? sql.fragment`null::text`;

/**
 * A row of the counts queries: users who reached `reached` steps, a pattern of them, or one user
 * to walk; `alone` when they were counted from rows alone in their project (StepSource.alone).
 */
export const countsRow = z.object({
  value: z.string().nullable(),
  reached: z.number(),
  pattern: z.string().nullable(),
  unresolved_user: z.number().nullable(),
  alone: z.boolean(),
  /** The day of alone rows counted day by day (aloneRowsOfDays), null otherwise. */
  day: z.string().nullable(),
  users: z.number(),
});

export const userEvents = z.object({
  user_key: z.number(),
  value: z.string().nullable(),
  events: z.array(z.tuple([z.string(), z.string().nullable(), z.number()])),
});

/**
 * Every step event in the scope of the given users, with its step and screen names, for walking
 * their funnels one by one: one (app_id, user_key, timestamp) index walk per user, in that user's
 * partition only. The users are few and the events many; `offset 0` keeps the planner from turning
 * the walks into a hash join over every event of the window.
 */
export function stepEventsOfUsersQuery(scope: FunnelScope, steps: readonly KeyedStepFilter[], userKeys: readonly number[], breakdown?: FunnelBreakdown) {
  return sql.fragment`
    select x.user_key, ${breakdownColumn(breakdown, "e")} as value,
           json_agg(json_build_array(s.name, c.name, (extract(epoch from e."timestamp") * 1000)::float8)) as events
      from unnest(${sql.array(userKeys, "int4")}) as x(user_key)
      cross join lateral (
        select e.* from funnel_events e where ${and([...scopeConditions(scope, "e"), anyStep(steps), sql.fragment`e.user_key = x.user_key`])}
        offset 0
      ) e
      join funnel_names s on s.name_key = e.step_key
      left join funnel_names c on c.name_key = e.screen_key
     group by 1, 2`;
}

/**
 * For the completions count: distinct users who did the last step, and who did the first or the
 * last step, in the window.
 */
export function completionsQuery(scope: FunnelScope, steps: readonly KeyedStepFilter[]) {
  const first = matches(steps[0]!, "e");
  const last = matches(steps[steps.length - 1]!, "e");
  return sql.type(z.object({ count: z.number(), started: z.number() }))`
    select count(distinct e.user_key) filter (where ${last}) as count,
           count(distinct e.user_key) filter (where ${first} or ${last}) as started
      from funnel_events e where ${and([...scopeConditions(scope, "e"), anyStep([steps[0]!, steps[steps.length - 1]!])])}`;
}
