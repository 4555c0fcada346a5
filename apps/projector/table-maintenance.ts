import type { Logger } from "pino";
import type { DatabasePool } from "slonik";
import type { ProjectorLocks } from "../../projections/_runtime/projector-locks.ts";
import { maintainTables as maintain, tablesDueForMaintenance } from "../../projections/_runtime/table-maintenance.ts";

/** How often the tables are checked: autovacuum's default naptime is a minute; partitions fill faster than that in a drain. */
const CHECK_EVERY_MS = 15_000;
/** Tables maintained per round at most. */
const TABLES_PER_CHECK = 8;
const LOCK = "table-maintenance";

/**
 * Does for the read models what autovacuum does when it runs: our machines run Postgres without
 * it, and then a month partition is planned as if empty (no statistics), rollup rows rewritten by
 * every batch leave their dead versions behind for good, and index-only scans visit the heap (no
 * visibility map). Where autovacuum runs too, this duplicates some of its work. One process does
 * the work at a time (an advisory lock); the others skip the round, and so does this one while its
 * last round is still running.
 */
export function maintainTables(deps: { pool: DatabasePool; locks: ProjectorLocks; logger: Logger }): { stop: () => Promise<void> } {
  const logger = deps.logger.child({ component: "table-maintenance" });
  let stopped = false;
  let running: Promise<void> | undefined;
  const round = async () => {
    if (!(await deps.locks.tryAcquire(LOCK, () => undefined))) return;
    try {
      const due = await tablesDueForMaintenance(deps.pool, TABLES_PER_CHECK);
      if (due.length === 0) return;
      const started = performance.now();
      await maintain(deps.pool, due, () => stopped);
      logger.debug({ tables: due.map((table) => `${table.schema}.${table.table}: ${table.work}`), ms: Math.round(performance.now() - started) }, "maintained read-model tables");
    } finally {
      await deps.locks.release(LOCK);
    }
  };
  const timer = setInterval(() => {
    if (running) return;
    running = round()
      .catch((error: unknown) => logger.warn({ err: error }, "could not maintain the read-model tables"))
      .finally(() => (running = undefined));
  }, CHECK_EVERY_MS);
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
