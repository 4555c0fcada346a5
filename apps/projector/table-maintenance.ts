import type { Logger } from "pino";
import type { DatabasePool } from "slonik";
import type { ProjectorLocks } from "../../projections/_runtime/projector-locks.ts";
import { maintainTable, tablesDueForMaintenance } from "../../projections/_runtime/table-maintenance.ts";

/** How often the tables are checked: autovacuum's default naptime is a minute; partitions fill faster than that in a drain. */
const CHECK_EVERY_MS = 15_000;
/** Tables maintained per check at most, so one round never holds a connection for long. */
const TABLES_PER_CHECK = 8;
const LOCK = "table-maintenance";

/**
 * Does for the read models what autovacuum does when it runs: our machines run Postgres without
 * it, and then a month partition is planned as if empty (no statistics), rollup rows rewritten by
 * every batch leave their dead versions behind for good, and index-only scans visit the heap (no
 * visibility map). Where autovacuum runs, it leaves no table due and this does nothing. One process
 * does the work at a time (an advisory lock); the others skip the round.
 */
export function maintainTables(deps: { pool: DatabasePool; locks: ProjectorLocks; logger: Logger }): { stop: () => Promise<void> } {
  const logger = deps.logger.child({ component: "table-maintenance" });
  let stopped = false;
  let round: Promise<void> = Promise.resolve();
  const check = async () => {
    if (!(await deps.locks.tryAcquire(LOCK, () => undefined))) return;
    try {
      for (const table of await tablesDueForMaintenance(deps.pool, TABLES_PER_CHECK)) {
        if (stopped) return;
        const started = performance.now();
        await maintainTable(deps.pool, table);
        logger.debug({ table: `${table.schema}.${table.table}`, work: table.work, ms: Math.round(performance.now() - started) }, "maintained a read-model table");
      }
    } finally {
      await deps.locks.release(LOCK);
    }
  };
  const timer = setInterval(() => {
    round = round.then(check).catch((error: unknown) => logger.warn({ err: error }, "could not maintain the read-model tables"));
  }, CHECK_EVERY_MS);
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await round;
    },
  };
}
