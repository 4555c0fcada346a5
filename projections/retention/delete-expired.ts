import { sql, type CommonQueryMethods, type DatabasePool } from "slonik";
import { z } from "zod";
import type { Leaf } from "./catalog.ts";
import type { ExpiringTable } from "./tables.ts";

/**
 * Rows one statement deletes at most: each statement commits on its own, so no lock is held for
 * longer than a chunk takes (tens of ms), and the projectors writing the same tables never wait long.
 */
const CHUNK_ROWS = 5_000;

/** One value of a table's key columns in a leaf, and the project its rows belong to. */
export type KeyValue = { values: (string | number)[]; projectId: string };

const columns = (names: readonly string[], alias?: string) =>
  sql.join(
    names.map((name) => sql.identifier(alias === undefined ? [name] : [alias, name])),
    sql.fragment`, `,
  );

/**
 * Every distinct value of the table's key columns in `leaf`, with its project, found by walking
 * the index that leads with them one step per value (a loose index scan: a few index probes per
 * value, however many rows each holds).
 * @throws the database error when Postgres cannot answer
 */
export async function keysIn(db: CommonQueryMethods, leaf: Leaf, table: ExpiringTable): Promise<KeyValue[]> {
  const relation = sql.identifier([leaf.schema, leaf.name]);
  const keys = columns(table.keys);
  // The events read model's key is the app: its project comes from the row found for it.
  const project = table.keys.includes("project_id") ? sql.fragment`` : sql.fragment`, project_id`;
  const rows = await db.any(sql.type(z.object({ key: z.record(z.union([z.string(), z.number()])) }))`
    with recursive k as (
      (select ${keys}${project} from ${relation} order by ${keys} limit 1)
      union all
      select n.* from k cross join lateral (
        select ${keys}${project} from ${relation} where (${keys}) > (${columns(table.keys, "k")}) order by ${keys} limit 1
      ) n
    )
    select to_jsonb(k) as key from k`);
  return rows.map(({ key }) => ({ values: table.keys.map((name) => key[name]!), projectId: String(key.project_id) }));
}

const chunkRow = z.object({ found: z.number(), deleted: z.number(), unlinked: z.number(), last: z.string().nullable() });

export type Deleted = { rows: number; companions: number };

/**
 * Deletes the rows of one key value in `leaf` whose time is before `cutoff`, oldest first, a chunk
 * per statement; each chunk starts at the time the previous one reached, so it does not walk
 * over the index entries the chunks before it left dead. The companion rows of the deleted rows
 * (event_retimed) go in the same statement. `afterChunk` is called after each chunk with the rows
 * deleted so far; it may throw to stop.
 * @throws the database error when Postgres cannot answer, or what `afterChunk` throws
 */
export async function deleteExpired(
  pool: DatabasePool,
  leaf: Leaf,
  table: ExpiringTable,
  key: KeyValue,
  cutoff: Date,
  afterChunk: (deleted: number) => Promise<void>,
): Promise<Deleted> {
  const relation = sql.identifier([leaf.schema, leaf.name]);
  const time = sql.identifier([table.time]);
  const sameKey = sql.join(
    table.keys.map((name, index) => sql.fragment`${sql.identifier([name])} = ${key.values[index]!}`),
    sql.fragment` and `,
  );
  const companion = table.companion;
  const returning = companion ? sql.fragment`id` : sql.fragment`1 as one`;
  const unlink = companion
    ? sql.fragment`, unlinked as (delete from ${sql.identifier([leaf.schema, companion.table])} c using gone g where c.id = g.id returning 1)`
    : sql.fragment`, unlinked as (select 1 where false)`;
  const done: Deleted = { rows: 0, companions: 0 };
  let from = "-infinity";
  for (;;) {
    const chunk = await pool.one(sql.type(chunkRow)`
      with doomed as materialized (
        select ctid as tid, ${time} as at from ${relation}
         where ${sameKey} and ${time} >= ${from}::timestamptz and ${time} < ${cutoff.toISOString()}::timestamptz
         order by ${time} limit ${CHUNK_ROWS}
      ),
      gone as (delete from ${relation} where ctid = any(array(select tid from doomed)) returning ${returning})
      ${unlink}
      select (select count(*) from doomed)::int as found, (select count(*) from gone)::int as deleted,
             (select count(*) from unlinked)::int as unlinked, (select max(at) from doomed) as last`);
    done.rows += chunk.deleted;
    done.companions += chunk.unlinked;
    await afterChunk(done.rows);
    if (chunk.found < CHUNK_ROWS || chunk.last === null) return done;
    from = chunk.last;
  }
}
