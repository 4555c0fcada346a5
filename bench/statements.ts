import type pg from "pg";
import { round } from "./stats.ts";

export type StatementFigures = { statement: string; calls: number; seconds: number; ms_per_call: number; microseconds_per_event: number; wal_mb: number };

/**
 * Postgres's own figures for the statements `work` runs in this database, when the server loads
 * pg_stat_statements (`shared_preload_libraries`; docs/operations.md): the statements that took
 * the most time, with their time per event of `events`. Undefined on a server without it.
 */
export async function topStatements<T>(db: pg.Pool, events: () => number, work: () => Promise<T>, count = 8): Promise<{ result: T; statements: StatementFigures[] | undefined }> {
  const available = await db
    .query("create extension if not exists pg_stat_statements")
    .then(() => db.query("select pg_stat_statements_reset()"))
    .then(() => true)
    .catch(() => false);
  const result = await work();
  if (!available) return { result, statements: undefined };
  const { rows } = await db.query<{ query: string; calls: string; ms: number; wal: string }>(
    `select left(regexp_replace(query, '\\s+', ' ', 'g'), 120) as query, calls, total_exec_time as ms, wal_bytes as wal
       from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
      order by total_exec_time desc limit $1`,
    [count],
  );
  const statements = rows.map((row) => ({
    statement: row.query,
    calls: Number(row.calls),
    seconds: round(row.ms / 1000),
    ms_per_call: round(row.ms / Math.max(1, Number(row.calls))),
    microseconds_per_event: round((row.ms * 1000) / Math.max(1, events())),
    wal_mb: round(Number(row.wal) / 1048576),
  }));
  return { result, statements };
}
