import { sql, type DatabasePool } from "slonik";
import { z } from "zod";
import { dayOf } from "../funnel-events/step-source.ts";
import { refreshUserDays, userDayRow } from "../funnel-events/summary-write.ts";
import { leavesOf, type Leaf } from "./catalog.ts";

/** Rows one statement deletes at most, as in delete-expired.ts. */
const CHUNK_ROWS = 5_000;

/** The projects with rows in `leaf`, one index probe each (a loose scan of its (project_id, day) index). */
function projectsIn(pool: DatabasePool, leaf: Leaf) {
  const relation = sql.identifier([leaf.schema, leaf.name]);
  return pool.anyFirst(sql.type(z.object({ project_id: z.string() }))`
    with recursive p as (
      (select project_id from ${relation} order by project_id limit 1)
      union all
      select n.project_id from p cross join lateral (
        select project_id from ${relation} where project_id > p.project_id order by project_id limit 1
      ) n
    )
    select project_id from p`);
}

/**
 * Removes the per-user step summaries (`funnel_user_days`) of expired funnel events from the
 * active generation `schema`, once the events themselves are gone: a project's days before the
 * day of its cutoff are deleted, a chunk per statement within one partition (ctids are unique
 * only there), and its rows of that day that summarize events from before the cutoff are
 * computed again from the events left. A summary so stays what a grouping of funnel_events
 * gives, and a replay, which skips expired events, rebuilds the same rows.
 *
 * A late event of the cutoff day written between the recount's read and its write could be left
 * out of that row until the day expires; no query reads it (a query's window starts at or after
 * its own, later retention horizon, and reads only rows inside the window).
 * @throws the database error when Postgres cannot answer, or what `progress` throws
 */
export async function removeExpiredUserDays(
  pool: DatabasePool,
  schema: string,
  cutoffOf: (projectId: string) => Date,
  progress: (deleted: number) => Promise<void>,
): Promise<number> {
  const projects = new Set<string>();
  let deleted = 0;
  for (const leaf of await leavesOf(pool, schema, "funnel_user_days")) {
    const relation = sql.identifier([leaf.schema, leaf.name]);
    for (const projectId of await projectsIn(pool, leaf)) {
      projects.add(projectId);
      const day = dayOf(cutoffOf(projectId));
      for (;;) {
        const gone = await pool.oneFirst(sql.type(z.object({ gone: z.number() }))`
          with doomed as materialized (
            select ctid as tid from ${relation} where project_id = ${projectId} and day < ${day}::date limit ${CHUNK_ROWS}
          ),
          removed as (delete from ${relation} where ctid = any(array(select tid from doomed)) returning 1)
          select count(*)::int as gone from removed`);
        deleted += gone;
        if (gone > 0) await progress(deleted);
        if (gone < CHUNK_ROWS) break;
      }
    }
  }
  for (const projectId of projects) {
    const cutoff = cutoffOf(projectId);
    const straddling = await pool.any(sql.type(userDayRow)`
      select app_id, user_key, to_char(day, 'YYYY-MM-DD') as day from ${sql.identifier([schema, "funnel_user_days"])}
       where project_id = ${projectId} and day = ${dayOf(cutoff)}::date and first_at < ${cutoff.toISOString()}::timestamptz`);
    if (straddling.length === 0) continue;
    // refreshUserDays names its tables unqualified, as the projector's transaction sees them.
    await pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`select set_config('search_path', ${`${schema}, public`}, true)`);
      await refreshUserDays(tx, straddling);
    });
  }
  return deleted;
}
