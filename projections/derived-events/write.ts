import { sql, type DatabaseTransactionConnection, type FragmentSqlToken } from "slonik";
import { DEDUP_WINDOW_MS } from "../../domain/ingest/rules.ts";
import type { DerivedRow, ImportKey } from "./plan.ts";

/**
 * A derived read model's table: its name, its dedup table, its columns and the same columns with
 * their types, as the `json_to_recordset` record the rows travel in.
 */
export type DerivedTable = { name: string; dedup: string; columns: readonly string[]; record: FragmentSqlToken };

const WINDOW = sql.fragment`${`${DEDUP_WINDOW_MS} milliseconds`}::interval`;

const columnList = (table: DerivedTable, alias?: string) =>
  sql.join(
    table.columns.map((column) => sql.identifier(alias === undefined ? [column] : [alias, column])),
    sql.fragment`, `,
  );

/** The rows as one `json` parameter (read once, so not `jsonb`), as records `r`. */
const records = (table: DerivedTable, rows: readonly DerivedRow[]) =>
  sql.fragment`json_to_recordset(${JSON.stringify(rows)}::json) as r(${table.record})`;

/** CTE `remembered`: the (app_id, client_event_id) of the rows of CTE `source`, kept for dedup. */
const remembered = (table: DerivedTable, source: "fresh" | "input") => sql.fragment`
    remembered as (
      insert into ${sql.identifier([table.dedup])} (app_id, client_event_id, received_at)
      select app_id, client_event_id, received_at from ${sql.identifier([source])} where client_event_id is not null
    )`;

const more = (also: FragmentSqlToken | undefined) => (also === undefined ? sql.fragment`` : sql.fragment`, ${also}`);

/**
 * Writes ingested rows in one statement, skipping duplicates: a row whose
 * (app_id, client_event_id) was kept in the 48 hours before its receipt. The caller removed
 * repeats inside `rows`; the projector is the only writer and applies facts in order, so the
 * anti-join is race-free. `cutoff` bounds the dedup scan to the days that can match. `also` adds
 * CTEs that may read `fresh`, the rows written.
 */
export async function insertDeduped(tx: DatabaseTransactionConnection, table: DerivedTable, rows: readonly DerivedRow[], also?: FragmentSqlToken): Promise<void> {
  if (rows.length === 0) return;
  const minReceived = Math.min(...rows.map((row) => Date.parse(row.received_at)));
  const cutoff = new Date(minReceived - DEDUP_WINDOW_MS).toISOString();
  await tx.query(sql.unsafe`
    with input as materialized (
      select * from ${records(table, rows)}
    ),
    fresh as materialized (
      select * from input i
       where i.client_event_id is null
          or not exists (
               select 1 from ${sql.identifier([table.dedup])} d
                where d.app_id = i.app_id and d.client_event_id = i.client_event_id
                  and d.received_at >= i.received_at - ${WINDOW} and d.received_at >= ${cutoff}::timestamptz)
    ),
    ${remembered(table, "fresh")}${more(also)}
    insert into ${sql.identifier([table.name])} (${columnList(table)}) select ${columnList(table)} from fresh`);
}

/**
 * Applies imported events: removes every row derived from an event with one of `keys` and
 * writes `rows`, a row taking the id of the row it replaces (the import updated that event in
 * place; with several, the latest received). `also` adds CTEs that may read `input`, the rows
 * written, and `removed`, the rows deleted.
 */
export async function replaceByKeys(
  tx: DatabaseTransactionConnection,
  table: DerivedTable,
  keys: readonly ImportKey[],
  rows: readonly DerivedRow[],
  also?: FragmentSqlToken,
): Promise<void> {
  if (keys.length === 0 && rows.length === 0) return;
  const name = sql.identifier([table.name]);
  const rest = { ...table, columns: table.columns.filter((column) => column !== "id") };
  await tx.query(sql.unsafe`
    with keys as (
      select * from json_to_recordset(${JSON.stringify(keys)}::json) as k(app_id uuid, client_event_id uuid)
    ),
    removed as (
      delete from ${name} x using keys k
       where x.app_id = k.app_id and x.client_event_id = k.client_event_id
      returning x.*
    ),
    kept as (
      select distinct on (app_id, client_event_id) app_id, client_event_id, id from removed
       order by app_id, client_event_id, received_at desc, id desc
    ),
    input as materialized (
      select coalesce(kept.id, r.id) as id, ${columnList(rest, "r")}
        from ${records(table, rows)}
        left join kept on kept.app_id = r.app_id and kept.client_event_id = r.client_event_id
    ),
    ${remembered(table, "input")}${more(also)}
    insert into ${name} (${columnList(table)}) select ${columnList(table)} from input`);
}
