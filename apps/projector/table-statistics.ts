import type { Logger } from "pino";
import type { DatabasePool } from "slonik";
import type { ProjectorLocks } from "../../projections/_runtime/projector-locks.ts";
import { analyzeTable, tablesDueForAnalyze } from "../../projections/_runtime/table-statistics.ts";

/** How often the tables are checked: autovacuum's default naptime is a minute; partitions fill faster than that in a drain. */
const CHECK_EVERY_MS = 15_000;
/** Tables analyzed per check at most, so one round never holds a connection for long. */
const TABLES_PER_CHECK = 8;
const LOCK = "table-statistics";

/**
 * Keeps the planner statistics of the read models fresh as their partitions fill, which autovacuum
 * does when it runs; our machines run Postgres without it, and a query on a month partition with
 * no statistics is planned as if it were empty. Where autovacuum runs, it leaves no table due and
 * this does nothing. One process analyzes at a time (an advisory lock); the projectors of others
 * skip the round.
 */
export function keepTableStatistics(deps: { pool: DatabasePool; locks: ProjectorLocks; logger: Logger }): { stop: () => Promise<void> } {
  const logger = deps.logger.child({ component: "table-statistics" });
  let stopped = false;
  let round: Promise<void> = Promise.resolve();
  const check = async () => {
    if (!(await deps.locks.tryAcquire(LOCK, () => undefined))) return;
    try {
      for (const table of await tablesDueForAnalyze(deps.pool, TABLES_PER_CHECK)) {
        if (stopped) return;
        const started = performance.now();
        await analyzeTable(deps.pool, table);
        logger.debug({ table, ms: Math.round(performance.now() - started) }, "analyzed a read-model table");
      }
    } finally {
      await deps.locks.release(LOCK);
    }
  };
  const timer = setInterval(() => {
    round = round.then(check).catch((error: unknown) => logger.warn({ err: error }, "could not refresh table statistics"));
  }, CHECK_EVERY_MS);
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await round;
    },
  };
}
