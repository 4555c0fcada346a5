import { sql, type DatabasePool } from "slonik";
import { z } from "zod";

/** A read-model table due for maintenance: `vacuum` (and analyze) when its dead or inserted rows call for it, else `analyze`. */
export type DueTable = { schema: string; table: string; work: "vacuum" | "analyze" };

const dueTable = z.object({ schema: z.string(), table: z.string(), work: z.enum(["vacuum", "analyze"]) });

/**
 * Read-model tables that autovacuum would process now, with its default thresholds: a vacuum when
 * more rows died than 50 + 20% of the table (updated rollup rows, replaced imports) or more were
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

/** Vacuums (with analyze) or analyzes one table; a table dropped meanwhile (retention, a replay's swap) is skipped. */
export async function maintainTable(pool: DatabasePool, { schema, table, work }: DueTable): Promise<void> {
  const exists = await pool.oneFirst(sql.type(z.object({ exists: z.boolean() }))`
    select to_regclass(${`${quote(schema)}.${quote(table)}`}) is not null as exists`);
  if (!exists) return;
  const name = sql.identifier([schema, table]);
  await pool.query(work === "vacuum" ? sql.unsafe`vacuum (analyze) ${name}` : sql.unsafe`analyze ${name}`);
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
