import { sql, type DatabasePool } from "slonik";
import type { Leaf } from "./catalog.ts";

/**
 * Dropping a partition takes an ACCESS EXCLUSIVE lock on its parent as well. Queued behind a
 * projector transaction it would hold up every reader of the table, so it waits this long at
 * most, gives way and tries again a little later.
 */
const LOCK_TIMEOUT_MS = 2_000;
const ATTEMPTS = 5;

const lockNotAvailable = (error: unknown) => {
  const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
  return code === "55P03";
};

/**
 * Drops a monthly partition whose rows have expired for every project, and the companion rows of
 * its month (event_retimed: an event's current timestamp), in one transaction. Returns the
 * companion rows removed.
 * @throws the database error when Postgres cannot answer, or the lock error after ATTEMPTS tries
 */
export async function dropMonth(pool: DatabasePool, leaf: Leaf & { month: { from: Date; to: Date } }, companion?: string): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`select set_config('lock_timeout', ${`${LOCK_TIMEOUT_MS}ms`}, true)`);
        let removed = 0;
        if (companion !== undefined) {
          const result = await tx.query(sql.unsafe`
            delete from ${sql.identifier([leaf.schema, companion])}
             where "timestamp" >= ${leaf.month.from.toISOString()}::timestamptz and "timestamp" < ${leaf.month.to.toISOString()}::timestamptz`);
          removed = result.rowCount;
        }
        await tx.query(sql.unsafe`drop table ${sql.identifier([leaf.schema, leaf.name])}`);
        return removed;
      });
    } catch (error) {
      if (!lockNotAvailable(error) || attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * 1_000));
    }
  }
}
