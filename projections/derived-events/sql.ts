import { sql, type FragmentSqlToken, type QuerySqlToken } from "slonik";
import { z, type ZodTypeAny } from "zod";
import type { DataMode } from "../../domain/analytics/window.ts";
import type { Reader } from "./snapshot.ts";

export const and = (conditions: readonly FragmentSqlToken[]) => sql.join(conditions, sql.fragment` and `);

export const iso = (date: Date) => sql.fragment`${date.toISOString()}::timestamptz`;

/** `is_dev` per data mode: production is the default and hides development data. */
export function dataModeCondition(mode: DataMode, column: FragmentSqlToken): FragmentSqlToken {
  if (mode === "production") return sql.fragment`${column} = false`;
  if (mode === "development") return sql.fragment`${column} = true`;
  return sql.fragment`true`;
}

/**
 * Runs an analytics read with JIT off (compiling costs more than it saves on these scans), enough
 * memory for the hash tables of distinct users, and partitionwise aggregation, which lets a
 * grouping by user run per user-hash partition of funnel_events, in parallel.
 */
export function analyticsRead<T extends ZodTypeAny>(pool: Reader, query: QuerySqlToken<T>) {
  return pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`select set_config('jit', 'off', true), set_config('work_mem', '64MB', true), set_config('enable_partitionwise_aggregate', 'on', true)`);
    return tx.any(query);
  });
}

/**
 * Reads every row of `query` as one JSON array in one row, parsed and validated here. A grouped
 * query can return thousands of rows, and the driver's and slonik's work per row (decoding each
 * column, one interceptor call per row) cost more than Postgres spends on the query. The array is
 * built after the query's own (possibly parallel) aggregation, so it does not change the plan.
 */
export async function analyticsRows<T extends ZodTypeAny>(pool: Reader, query: FragmentSqlToken, row: T): Promise<z.infer<T>[]> {
  const [result] = await analyticsRead(pool, sql.type(z.object({ rows: z.string() }))`
    select coalesce(json_agg(r), '[]'::json)::text as rows from (${query}) r`);
  return z.array(row).parse(JSON.parse(result?.rows ?? "[]"));
}
