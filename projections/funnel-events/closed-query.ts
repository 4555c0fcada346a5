import { sql, type FragmentSqlToken } from "slonik";
import type { FunnelBreakdown } from "../../domain/funnels/analytics.ts";
import { ORDER_BITS } from "../../domain/funnels/walk.ts";
import { breakdownColumn, dayLabel } from "./analytics-queries.ts";
import type { StepSource } from "./step-source.ts";

/** `a` strictly later than `b`; a missing time is never later. */
const later = (a: FragmentSqlToken, b: FragmentSqlToken) => sql.fragment`coalesce(${a} > ${b}, false)`;

/** A per-user column of the inner query, read by the outer one. */
const col = (name: string) => sql.fragment`${sql.identifier(["u", name])}`;

/**
 * Closed funnels, one pass. Per user, f(k) is the first time of step k and l(k) the last. A user
 * reaches step k at t(k), the first step-k time strictly after t(k-1), with t(0) = f(0). While
 * each step's first time follows the previous one, t(k) = f(k). The last step is reached when
 * its last time follows t(n-2), so it needs no first time, and step 0 needs no last time: 2n - 2
 * aggregates. Each one costs a filter and a transition on every event of the window, and more
 * than 8 double the per-user state Postgres allocates in the hash table (16 bytes each, rounded
 * up to a power of two), so none is spent needlessly.
 *
 * Where the chain breaks at a middle step k (f(k) <= t(k-1)), the user stops at k unless l(k) is
 * later; then `reached` is -k: step k was done at or before t(k-1) and after it, and t(k) lies
 * in between. When no event can match two steps (disjointSteps), `middle` counts the events of
 * the middle steps (the source's `middle`: events count at least those). If that is no more than
 * the middle steps' first and last times show, those steps had no other events: t(k) = l(k), and
 * the order of the first and last times settles the rest, sent as a `pattern`
 * (closedStepsFromOrder) with the users who share it.
 * Any other such user comes back alone as `unresolved_user`, for the caller to walk their events.
 * The count is one more aggregate (a ninth for five steps), but it costs less than walking the
 * users it settles: a second query with an index walk per user.
 */
export function closedCountsQuery(source: StepSource, n: number, breakdown?: FunnelBreakdown, disjoint = false) {
  const middle = Array.from({ length: Math.max(0, n - 2) }, (_, i) => i + 1);
  const counted = disjoint && middle.length > 0;
  // Per user: f(k) for step 0 and the middle steps, l(k) for the others, and the middle count.
  const times = (of: Pick<StepSource, "first" | "last" | "middle">) => [
    ...[0, ...middle].map((k) => sql.fragment`${of.first(k)} as ${sql.identifier([`f${k}`])}`),
    ...[...middle, n - 1].filter((k) => k > 0).map((k) => sql.fragment`${of.last(k)} as ${sql.identifier([`l${k}`])}`),
    ...(counted ? [sql.fragment`${of.middle(middle, [0, n - 1])} as middle`] : []),
  ];
  const value = breakdownColumn(breakdown, "e");
  // Repeated aggregates are computed once: the planner merges equal ones.
  let perUser = sql.fragment`
          select e.user_key, ${value} as value, false as alone, null::text as day, ${sql.join(times(source), sql.fragment`, `)}
            from ${source.rows}
           group by ${breakdown === undefined ? sql.fragment`1` : sql.fragment`1, 2`}
          having ${source.first(0)} is not null`;
  if (source.alone !== undefined) {
    // A branch of a union computes its columns once; the query above reads them.
    perUser = sql.fragment`${perUser}
           union all
          select e.user_key, ${value} as value, true as alone, ${dayLabel(source.alone)} as day, ${sql.join(times(source.alone), sql.fragment`, `)}
            from ${source.alone.rows} and ${source.alone.first(0)} is not null`;
  }
  const breaks = middle.map((k) => sql.fragment`when not ${later(time("f", k), time("f", k - 1))} then case when ${later(time("l", k), time("f", k - 1))} then ${-k}::int else ${k}::int end`);
  const end = n === 1 ? sql.fragment`1` : sql.fragment`case when ${later(time("l", n - 1), time("f", n - 2))} then ${n}::int else ${n - 1}::int end`;
  const reached = breaks.length === 0 ? end : sql.fragment`case ${sql.join(breaks, sql.fragment` `)} else ${end} end`;
  let settled = sql.fragment`null::text as pattern, case when u.reached < 0 then u.user_key end as unresolved_user`;
  if (counted) {
    settled = sql.fragment`
           case when u.reached >= 0 then null when ${twoEventsAtMost(middle)} then ${orderLetters(n)} end as pattern,
           case when u.reached >= 0 then null when ${twoEventsAtMost(middle)} then null else u.user_key end as unresolved_user`;
  }
  // The per-user values are computed once per user (or alone row); the outer query only counts
  // users per outcome.
  return sql.fragment`
    select u.value, u.reached, ${settled}, u.alone, u.day, count(*)::int as users
      from (select t.*, ${reached} as reached from (${perUser}) t) u
     group by 1, 2, 3, 4, 5, 6`;
}

/** A per-user time of the union of grouped users and alone rows, read by the reached case. */
const time = (kind: "f" | "l", k: number) => sql.fragment`${sql.identifier(["t", `${kind}${k}`])}`;

/** Whether the middle steps' first and last times account for every event counted in `middle`. */
function twoEventsAtMost(middle: readonly number[]) {
  const shown = middle.map((k) => sql.fragment`(${col(`f${k}`)} is not null)::int + ${later(col(`l${k}`), col(`f${k}`))}::int`);
  return sql.fragment`u.middle = ${sql.join(shown, sql.fragment` + `)}`;
}

/** The order letters of steps 1..n-1 (ORDER_BITS): which of a step's times follow the previous step's. */
function orderLetters(n: number) {
  const letters = Array.from({ length: n - 1 }, (_, i) => {
    const k = i + 1;
    const hasFirst = k < n - 1;
    const bits = [
      hasFirst ? sql.fragment`${later(col(`f${k}`), col(`f${k - 1}`))}::int * ${ORDER_BITS.firstAfterFirst}` : null,
      hasFirst && k > 1 ? sql.fragment`${later(col(`f${k}`), col(`l${k - 1}`))}::int * ${ORDER_BITS.firstAfterLast}` : null,
      sql.fragment`${later(col(`l${k}`), col(`f${k - 1}`))}::int * ${ORDER_BITS.lastAfterFirst}`,
      k > 1 ? sql.fragment`${later(col(`l${k}`), col(`l${k - 1}`))}::int * ${ORDER_BITS.lastAfterLast}` : null,
    ].filter((bit) => bit !== null);
    return sql.fragment`chr(65 + ${sql.join(bits, sql.fragment` + `)})`;
  });
  return sql.fragment`concat(${sql.join(letters, sql.fragment`, `)})`;
}
