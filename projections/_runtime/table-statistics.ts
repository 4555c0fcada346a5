import { sql, type DatabasePool } from "slonik";
import { z } from "zod";

export type TableName = { schema: string; table: string };

const tableName = z.object({ schema: z.string(), table: z.string() });

/**
 * Read-model tables whose planner statistics are stale, as autovacuum would judge them: more rows
 * changed since their last ANALYZE than 50 + 10% of the rows they hold (its default analyze
 * threshold and scale factor), most changed first. Only tables that hold rows (plain tables and
 * partitions) in the generation schemas (`rm_*`): a partitioned parent has none of its own.
 */
export async function tablesDueForAnalyze(pool: DatabasePool, limit: number): Promise<TableName[]> {
  const rows = await pool.any(sql.type(tableName)`
    select s.schemaname as schema, s.relname as table
      from pg_stat_user_tables s
      join pg_class c on c.oid = s.relid and c.relkind = 'r'
     where s.schemaname like 'rm\\_%'
       and s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
     order by s.n_mod_since_analyze desc
     limit ${limit}`);
  return [...rows];
}

/** Gathers the planner statistics of one table; a table dropped meanwhile (retention, a replay's swap) is skipped. */
export async function analyzeTable(pool: DatabasePool, { schema, table }: TableName): Promise<void> {
  const exists = await pool.oneFirst(sql.type(z.object({ exists: z.boolean() }))`
    select to_regclass(${`${quote(schema)}.${quote(table)}`}) is not null as exists`);
  if (exists) await pool.query(sql.unsafe`analyze ${sql.identifier([schema, table])}`);
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
