import { sql, type DatabasePool, type FragmentSqlToken } from "slonik";
import { z } from "zod";
import { errorsOnly, readsRows, rollupScopes, windowParts } from "./count.ts";
import { eventConditions, visibleApps, type EventFilter, type Viewer } from "./queries.ts";

/** The buckets a series can be cut into: UTC hours or UTC days. */
export const SERIES_INTERVALS = ["hour", "day"] as const;
export type SeriesInterval = (typeof SERIES_INTERVALS)[number];

const EPOCH = sql.fragment`'1970-01-01T00:00:00Z'::timestamptz`;
const width = (interval: SeriesInterval) => sql.fragment`${`1 ${interval}`}::interval`;
const bucketRow = z.object({ start: z.string(), count: z.number() });

/**
 * Events per UTC hour or day of the filter's window (both ends inclusive), exact, in one
 * statement: the buckets a chart draws, instead of one count per bucket. The whole hours come
 * from the hourly totals, the whole minutes of the partial hours from the minute totals and the
 * partial minutes at the edges from the rows, each grouped by the bucket it falls in (every hour
 * and minute lies in exactly one hour or day). The totals also count each bucket's error events,
 * so `level=error` alone reads them too; a filter they do not keep (other levels, environment,
 * screen, user, session) groups the rows themselves. Buckets without events are left out; the
 * caller knows the window.
 */
export async function eventSeries(pool: DatabasePool, viewer: Viewer, filter: EventFilter & { since: Date; until: Date }, interval: SeriesInterval) {
  const errors = errorsOnly(filter);
  const rows = readsRows(filter) && !errors ? fromRows(viewer, filter, interval) : rolledUp(viewer, filter, interval, errors ? "errors" : "events");
  return pool.transaction(async (tx) => {
    // JIT compiling costs more than it saves at these sizes.
    await tx.query(sql.unsafe`select set_config('jit', 'off', true)`);
    return tx.any(sql.type(bucketRow)`
      select to_char(start at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as start, sum(events)::bigint as count
        from (${rows}) parts group by start order by start`);
  });
}

function fromRows(viewer: Viewer, filter: EventFilter, interval: SeriesInterval): FragmentSqlToken {
  const conditions = [sql.fragment`e.app_id in (${visibleApps(viewer, filter)})`, ...eventConditions(filter)];
  return sql.fragment`
    select date_bin(${width(interval)}, e."timestamp", ${EPOCH}) as start, count(*) as events
      from events e where ${sql.join(conditions, sql.fragment` and `)} group by 1`;
}

/** `counted`: the totals' column, all events or the error events (whose rows then carry the level filter). */
function rolledUp(viewer: Viewer, filter: EventFilter, interval: SeriesInterval, counted: "events" | "errors"): FragmentSqlToken {
  const branches = windowParts(filter).map(({ tier, from, where }) => {
    const time = tier === "rows" ? sql.fragment`e."timestamp"` : sql.identifier(["c", tier]);
    const events = tier === "rows" ? sql.fragment`count(*)` : sql.fragment`sum(${sql.identifier(["c", counted])})`;
    return sql.fragment`select date_bin(${width(interval)}, ${time}, ${EPOCH}) as start, ${events} as events from ${from} where ${where} group by 1`;
  });
  return sql.fragment`with ${rollupScopes(viewer, filter)} ${sql.join(branches, sql.fragment` union all `)}`;
}
