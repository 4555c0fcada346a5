import { sql, type DatabasePool, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";

/** What an analytics read needs of the database: a transaction to run in. A pool is one; so is a `SnapshotReader`. */
export type Reader = { transaction: <T>(handler: (tx: DatabaseTransactionConnection) => Promise<T>) => Promise<T> };

/** Snapshots exported at once per pool: each holds a connection while its reads take others. */
const holders = new WeakMap<DatabasePool, { free: number; waiting: (() => void)[] }>();

/**
 * Runs `work` with a reader whose transactions, on as many connections as it runs at once, all see
 * one snapshot of the database: one REPEATABLE READ transaction exports it (`pg_export_snapshot`)
 * and every read imports it. Statements sent in parallel then answer as one statement would, with
 * no commit of a projector between them. The exporting connection is held until `work` ends, so
 * at most a third of the pool's connections export at once (the rest wait their turn): reads
 * always find connections left to import into.
 * @throws what `work` or the database throws
 */
export async function inOneSnapshot<T>(pool: DatabasePool, work: (reader: Reader) => Promise<T>): Promise<T> {
  const slots = holders.get(pool) ?? { free: Math.max(1, Math.floor((pool.configuration.maximumPoolSize ?? 10) / 3)), waiting: [] };
  holders.set(pool, slots);
  if (slots.free === 0) await new Promise<void>((resolve) => slots.waiting.push(resolve));
  else slots.free -= 1;
  // The exporting transaction runs beside `work`, not around it: slonik refuses other connections'
  // queries inside a transaction's callback, and `work` must be free to use the pool.
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  let exported!: (id: string) => void;
  const snapshotId = new Promise<string>((resolve) => (exported = resolve));
  const exporting = pool.transaction(async (exporter) => {
    exported(await exporter.oneFirst(sql.type(z.object({ id: z.string() }))`select pg_export_snapshot() as id`));
    await done;
  });
  try {
    const snapshot = await Promise.race([snapshotId, exporting.then(() => Promise.reject(new Error("the snapshot's transaction ended early")))]);
    const reader: Reader = {
      transaction: (handler) =>
        pool.transaction(async (tx) => {
          await tx.query(sql.unsafe`set transaction isolation level repeatable read`);
          await tx.query(sql.unsafe`set transaction snapshot ${sql.literalValue(snapshot)}`);
          return handler(tx);
        }),
    };
    return await work(reader);
  } finally {
    finished();
    await exporting.catch(() => undefined);
    const next = slots.waiting.shift();
    if (next) next();
    else slots.free += 1;
  }
}
