import { sql, type DatabasePool, type FragmentSqlToken } from "slonik";
import { z } from "zod";
import { readsRows, rollupScopes, windowParts } from "./count.ts";
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
 * and minute lies in exactly one hour or day). A filter the totals do not keep (level,
 * environment, screen, user, session) groups the rows themselves. Buckets without events are
 * left out; the caller knows the window.
 */
export async function eventSeries(pool: DatabasePool, viewer: Viewer, filter: EventFilter & { since: Date; until: Date }, interval: SeriesInterval) {
  const rows = readsRows(filter) ? fromRows(viewer, filter, interval) : rolledUp(viewer, filter, interval);
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

function rolledUp(viewer: Viewer, filter: EventFilter, interval: SeriesInterval): FragmentSqlToken {
  const branches = windowParts(filter).map(({ tier, from, where }) => {
    const time = tier === "rows" ? sql.fragment`e."timestamp"` : sql.identifier(["c", tier]);
    const events = tier === "rows" ? sql.fragment`count(*)` : sql.fragment`sum(c.events)`;
    return sql.fragment`select date_bin(${width(interval)}, ${time}, ${EPOCH}) as start, ${events} as events from ${from} where ${where} group by 1`;
  });
  return sql.fragment`with ${rollupScopes(viewer, filter)} ${sql.join(branches, sql.fragment` union all `)}`;
}
