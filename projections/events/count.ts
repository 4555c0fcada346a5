import { sql, type DatabasePool, type DatabaseTransactionConnection, type FragmentSqlToken, type SqlToken } from "slonik";
import { z } from "zod";
import { splitForRollups, type TimeSpan } from "../../domain/analytics/window.ts";
import { distinctEstimate } from "./estimate.ts";
import { eventConditions, visibleApps, type EventFilter, type Viewer } from "./queries.ts";
import { sessionHash, sketchOf, userHash, WHOLE_PROJECT } from "./rollups.ts";

/**
 * Windows of at most this many events get exact distinct users and sessions, read from their
 * rows; above it they are estimated from the rollups' sketches. Measured on the 2-core machine
 * (other work running), the whole exact answer took 15 ms over 2,000 rows of one app, 38 ms over
 * 7,700 and 60 ms over 19,000.
 */
export const EXACT_DISTINCT_UP_TO = 10_000;

/** The bounds of a window left open: every timestamp the API accepts lies between them. */
const EARLIEST = new Date("0001-01-01T00:00:00Z");
const LATEST = new Date("9999-12-31T23:59:59.999Z");

const countRow = z.object({ count: z.number(), unique_users: z.number(), unique_sessions: z.number() });
/** The rollups' answer: the exact count and the merged sketches (`hll_send`, base64) with their hll_cardinality. */
const rolledRow = z.object({
  count: z.number(),
  users_estimate: z.number(),
  users_sketch: z.string().nullable(),
  sessions_estimate: z.number(),
  sessions_sketch: z.string().nullable(),
});

/** `estimated`: the distinct counts come from sketches (about 0.8 % standard error); `count` is exact either way. */
export type EventCount = z.infer<typeof countRow> & { estimated: boolean };

/**
 * `{count, unique_users, unique_sessions, estimated}` of the events the filter selects.
 *
 * Filtered by level, environment, screen name, user or session, the rows are read (the last two
 * through their indexes): the rollups are by app, project and is_dev only (the migration says
 * why). Otherwise the rollups give the exact count of the window without reading more than its
 * two partial minutes of rows (splitForRollups), and with it the union of the sketches. A window
 * of at most `exactUpTo` events is then read again for exact distinct counts: the first answer
 * told its size before any whole row was read. Above it, the merged sketches are counted by
 * `distinctEstimate` (linear counting where postgresql-hll's estimate is biased). Sketches may
 * over-count users after a claim or an import that changed them (a sketch cannot forget a value);
 * the exact path never does.
 */
export function countEvents(db: DatabasePool | DatabaseTransactionConnection, viewer: Viewer, filter: EventFilter, { exactUpTo = EXACT_DISTINCT_UP_TO } = {}) {
  return db.transaction(async (tx): Promise<EventCount> => {
    // JIT compiling costs more than it saves at these sizes; the exact pass hashes a window's ids.
    await tx.query(sql.unsafe`select set_config('jit', 'off', true), set_config('work_mem', '64MB', true)`);
    if (!readsRows(filter)) {
      const rolled = await tx.one(sql.type(rolledRow)`${rolledUp(viewer, filter)}`);
      if (rolled.count > exactUpTo) {
        // An estimate never names more users or sessions than there are events.
        const estimate = (sketch: string | null, hllEstimate: number) =>
          Math.min(rolled.count, Math.round(distinctEstimate(sketch === null ? null : Buffer.from(sketch, "base64"), hllEstimate)));
        return {
          count: rolled.count,
          unique_users: estimate(rolled.users_sketch, rolled.users_estimate),
          unique_sessions: estimate(rolled.sessions_sketch, rolled.sessions_estimate),
          estimated: true,
        };
      }
    }
    return { ...(await tx.one(sql.type(countRow)`${fromRows(viewer, filter)}`)), estimated: false };
  });
}

/** Whether the filter narrows the events by a value the rollups do not keep. */
/** Only error events, and no other filter the rollups lack: their `errors` column answers. */
export const errorsOnly = (filter: EventFilter) => filter.levels?.length === 1 && filter.levels[0] === "error" && !readsRows({ ...filter, levels: undefined });

export const readsRows = (filter: EventFilter) =>
  (filter.levels !== undefined && filter.levels.length > 0) ||
  filter.environment !== undefined ||
  filter.screenName !== undefined ||
  filter.userId !== undefined ||
  filter.sessionId !== undefined;

/**
 * Exact, from the rows, in one pass: grouping sets build the distinct users and the distinct
 * sessions in two hash tables during a single scan (count(distinct) would sort twice).
 */
function fromRows(viewer: Viewer, filter: EventFilter): FragmentSqlToken {
  const conditions = [sql.fragment`e.app_id in (${visibleApps(viewer, filter)})`, ...eventConditions(filter)];
  return sql.fragment`
    select coalesce(sum(n) filter (where g = 1), 0)::bigint as count,
           count(*) filter (where g = 1 and u is not null) as unique_users,
           count(*) filter (where g = 2) as unique_sessions
      from (select e.user_id as u, count(*) as n, grouping(e.user_id, e.session_id) as g
              from events e where ${sql.join(conditions, sql.fragment` and `)}
             group by grouping sets ((e.user_id), (e.session_id))) groups`;
}

const instant = (date: Date) => sql.fragment`${date.toISOString()}::timestamptz`;

/**
 * The CTEs `visible` (the viewer's apps the filter selects, with their projects) and `scopes`:
 * the rollup keys to read, the whole project's (app_id WHOLE_PROJECT) for a project whose apps
 * are all visible and none deleted (its row would count a deleted app's events), else each
 * visible app's.
 */
export function rollupScopes(viewer: Viewer, filter: EventFilter): FragmentSqlToken {
  return sql.fragment`
    visible as materialized (select a.id, a.project_id from apps a where a.id in (${visibleApps(viewer, filter)})),
    whole as materialized (
      select v.project_id from visible v group by v.project_id
      having count(*) = (select count(*) from apps a where a.project_id = v.project_id)
    ),
    scopes as materialized (
      select project_id, ${WHOLE_PROJECT}::uuid as app_id from whole
      union all
      select project_id, id from visible where project_id not in (select project_id from whole)
    )`;
}
const and = (conditions: FragmentSqlToken[]) => sql.join(conditions, sql.fragment` and `);

/**
 * One part of a window as the rollups read it: a tier's totals over a span (`c`, the totals table,
 * joined to the `scopes` of rollupScopes: one row per bucket for each project whose apps are all
 * visible, one per visible app for the others), or the events of a partial minute at an edge
 * (`e`, in the `visible` apps). `from` says where to read; `where` the conditions, data mode
 * included, the only other filter the rollups answer (their `errors` column aside: the caller
 * that reads it passes the filter's levels, `["error"]`, into the rows' conditions).
 */
export type WindowPart = { tier: "minute" | "hour" | "rows"; from: FragmentSqlToken; where: SqlToken };

/**
 * The parts of a window (splitForRollups): whole hours, whole minutes of the partial hours, the
 * rows of the partial minutes. Every instant of the window lies in exactly one of them, and each
 * is a single range of an index that leads with the scope and the time.
 */
export function windowParts(filter: EventFilter): WindowPart[] {
  const since = filter.since ?? EARLIEST;
  const until = filter.until ?? LATEST;
  const split = splitForRollups({ since, until });
  const totals = (tier: "minute" | "hour", span: TimeSpan): WindowPart => {
    const column = sql.identifier(["c", tier]);
    const conditions = [sql.fragment`${column} >= ${instant(span.from)}`, sql.fragment`${column} < ${instant(span.to)}`];
    if (filter.dataMode === "production") conditions.push(sql.fragment`c.is_dev = false`);
    if (filter.dataMode === "development") conditions.push(sql.fragment`c.is_dev = true`);
    return {
      tier,
      from: sql.fragment`scopes k join ${sql.identifier([`event_totals_${tier}`])} c on c.project_id = k.project_id and c.app_id = k.app_id`,
      where: and(conditions),
    };
  };
  const rowConditions = [sql.fragment`e.app_id in (select id from visible)`, ...eventConditions({ dataMode: filter.dataMode, levels: filter.levels })];
  const rows = (from: Date, to: FragmentSqlToken): WindowPart => ({
    tier: "rows",
    from: sql.fragment`events e`,
    where: and([...rowConditions, sql.fragment`e."timestamp" >= ${instant(from)}`, to]),
  });
  return [
    ...(split.hours ? [totals("hour", split.hours)] : []),
    ...split.minutes.map((span) => totals("minute", span)),
    ...(split.rowsBefore > since ? [rows(since, sql.fragment`e."timestamp" < ${instant(split.rowsBefore)}`)] : []),
    rows(split.rowsFrom, sql.fragment`e."timestamp" <= ${instant(until)}`),
  ];
}

/**
 * Exact count and estimated distinct counts of the window: each part is one branch, and the
 * branches' sums and sketches are merged.
 */
function rolledUp(viewer: Viewer, filter: EventFilter): FragmentSqlToken {
  const branches = windowParts(filter).map(({ tier, from, where }) =>
    tier === "rows"
      ? sql.fragment`
    select count(*) as events, ${sketchOf(userHash(sql.fragment`e.user_id`))} as users, ${sketchOf(sessionHash(sql.fragment`e.session_id`))} as sessions
      from ${from} where ${where}`
      : sql.fragment`
    select sum(c.events) as events, hll_union_agg(c.users) as users, hll_union_agg(c.sessions) as sessions from ${from} where ${where}`,
  );
  return sql.fragment`
    with ${rollupScopes(viewer, filter)},
    parts as (${sql.join(branches, sql.fragment` union all `)}),
    merged as (select sum(events) as events, hll_union_agg(users) as users, hll_union_agg(sessions) as sessions from parts)
    select coalesce(events, 0)::bigint as count,
           coalesce(hll_cardinality(users), 0) as users_estimate, encode(hll_send(users), 'base64') as users_sketch,
           coalesce(hll_cardinality(sessions), 0) as sessions_estimate, encode(hll_send(sessions), 'base64') as sessions_sketch
      from merged`;
}
