import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { generationSchema } from "../_runtime/projection.ts";

/** A table that holds rows: a partition of a partitioned table, or the table itself. */
export type Leaf = {
  schema: string;
  name: string;
  /** The month a `<table>_pYYYYMM` partition holds, `[from, to)`. */
  month?: { from: Date; to: Date };
};

/**
 * The schema of the read model's active generation: the tables the API reads through the public
 * views. A replay's shadow generation is left alone; it is being built by projectors that skip
 * expired rows already.
 * @throws the database error when Postgres cannot answer
 */
export async function activeSchema(db: CommonQueryMethods, projection: string): Promise<string> {
  const generation = await db.oneFirst(sql.type(z.object({ active_generation: z.number() }))`
    select active_generation from projection_generations where projection = ${projection}`);
  return generationSchema(projection, generation);
}

const leavesRow = z.object({ partitioned: z.boolean(), leaves: z.array(z.string()) });

/**
 * The tables holding the rows of `schema.table`: its partitions (a partition is never itself
 * partitioned in these read models), or the table alone when it is not partitioned.
 * @throws the database error when Postgres cannot answer
 */
export async function leavesOf(db: CommonQueryMethods, schema: string, table: string): Promise<Leaf[]> {
  const found = await db.one(sql.type(leavesRow)`
    select p.relkind = 'p' as partitioned,
           coalesce((select array_agg(c.relname::text order by c.relname) from pg_inherits i join pg_class c on c.oid = i.inhrelid
                      where i.inhparent = p.oid), '{}') as leaves
      from pg_class p where p.oid = ${`${schema}.${table}`}::regclass`);
  if (!found.partitioned) return [{ schema, name: table }];
  const monthly = new RegExp(`^${table}_p(\\d{4})(\\d{2})$`);
  return found.leaves.map((name) => {
    const match = monthly.exec(name);
    if (!match) return { schema, name };
    const year = Number(match[1]);
    const month = Number(match[2]);
    return { schema, name, month: { from: new Date(Date.UTC(year, month - 1, 1)), to: new Date(Date.UTC(year, month, 1)) } };
  });
}
