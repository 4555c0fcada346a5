import pg from "pg";
import { sql, type DatabasePool } from "slonik";
import { z } from "zod";

/** A read-model table due for maintenance: `vacuum` (and analyze) when its dead or inserted rows call for it, else `analyze`. */
export type DueTable = { schema: string; table: string; work: "vacuum" | "analyze" };

const dueTable = z.object({ schema: z.string(), table: z.string(), work: z.enum(["vacuum", "analyze"]) });

/**
 * Read-model tables that autovacuum would process, with its default thresholds: a vacuum when more
 * rows died than 50 + 20% of the table (updated rollup rows, replaced imports) or more were
 * inserted since the last vacuum than 1,000 + 20% (which keeps the visibility map, and with it
 * index-only scans, current), else an analyze when more rows changed than 50 + 10% since the last
 * one. Only tables that hold rows (plain tables and partitions) in the generation schemas (`rm_*`):
 * a partitioned parent has none of its own. Most changed first.
 */
export async function tablesDueForMaintenance(pool: DatabasePool, limit: number): Promise<DueTable[]> {
  const rows = await pool.any(sql.type(dueTable)`
    select schema, "table", work from (
      select s.schemaname as schema, s.relname as "table", s.n_mod_since_analyze + s.n_dead_tup as changed,
             case when s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
                    or s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0) then 'vacuum'
                  when s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) then 'analyze' end as work
        from pg_stat_user_tables s
        join pg_class c on c.oid = s.relid and c.relkind = 'r'
       where s.schemaname like 'rm\\_%'
    ) t
    where work is not null
    order by changed desc
    limit ${limit}`);
  return [...rows];
}

/**
 * Vacuums (with analyze) or analyzes `tables` one after the other, on a connection of its own
 * without the pool's statement timeout: a vacuum of a month partition can take minutes, and cut
 * short it would be chosen and cut short again every round. VACUUM cannot run in a transaction, so
 * it cannot take a `set local`. A table dropped meanwhile (retention, a replay's swap) is skipped.
 * `stopped` is asked between tables.
 */
export async function maintainTables(databaseUrl: string, tables: readonly DueTable[], stopped: () => boolean): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, statement_timeout: 0 });
  await client.connect();
  try {
    for (const { schema, table, work } of tables) {
      if (stopped()) return;
      const name = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`;
      const { rows } = await client.query<{ exists: boolean }>("select to_regclass($1) is not null as exists", [name]);
      if (rows[0]?.exists) await client.query(work === "vacuum" ? `vacuum (analyze) ${name}` : `analyze ${name}`);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
