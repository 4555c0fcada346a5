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
 * Vacuums (with analyze) or analyzes `tables` one after the other on one pooled connection, with
 * its statement timeout lifted meanwhile: a vacuum of a month partition can take minutes, and cut
 * short it would be chosen and cut short again every round. VACUUM cannot run in a transaction, so
 * the timeout cannot be a `set local`; it is put back before the connection returns to the pool.
 * A table dropped meanwhile (retention, a replay's swap) is skipped. `stopped` is asked between
 * tables.
 */
export async function maintainTables(pool: DatabasePool, tables: readonly DueTable[], stopped: () => boolean): Promise<void> {
  await pool.connect(async (connection) => {
    const timeout = await connection.oneFirst(sql.type(z.object({ timeout: z.string() }))`select current_setting('statement_timeout') as timeout`);
    await connection.query(sql.unsafe`select set_config('statement_timeout', '0', false)`);
    try {
      for (const { schema, table, work } of tables) {
        if (stopped()) return;
        const exists = await connection.oneFirst(sql.type(z.object({ exists: z.boolean() }))`
          select to_regclass(${`${quote(schema)}.${quote(table)}`}) is not null as exists`);
        const name = sql.identifier([schema, table]);
        if (exists) await connection.query(work === "vacuum" ? sql.unsafe`vacuum (analyze) ${name}` : sql.unsafe`analyze ${name}`);
      }
    } finally {
      await connection.query(sql.unsafe`select set_config('statement_timeout', ${timeout}, false)`);
    }
  });
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
