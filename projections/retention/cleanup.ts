import type { DatabasePool } from "slonik";
import { retentionPolicy, type RetentionPolicy } from "../../domain/projects/retention.ts";
import { allProjectRetentions } from "../directory/retention-queries.ts";
import { activeSchema, leavesOf, type Leaf } from "./catalog.ts";
import { deleteExpired, keysIn } from "./delete-expired.ts";
import { dropMonth } from "./drop-month.ts";
import { removeExpiredUserDays } from "./funnel-user-days.ts";
import { EXPIRING_TABLES, type DeletedCounts, type ExpiringTable } from "./tables.ts";

/** Progress between steps: `processed` of `total` steps done. It may throw to stop the cleanup there. */
export type OnStep = (processed: number, total: number, message: string) => Promise<void>;

export type RetentionCleanupResult = DeletedCounts & {
  /** Monthly partitions dropped whole, schema-qualified (`rm_events_g1.events_p202401`). */
  partitions_dropped: string[];
};

type Step = { message: string; run: (progress: (detail: string) => Promise<void>) => Promise<void> };

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/**
 * Removes what retention has expired from the events, metric events and funnel events read
 * models (their active generations), at `now`:
 * - a monthly partition whose month ended before `now` minus the longest retention of its kind
 *   (every project the directory holds, soft-deleted ones included, and the default) is dropped
 *   whole, with the retimed timestamps of its events;
 * - elsewhere rows older than their project's cutoff are deleted, a few thousand per statement,
 *   walking an index one key value (app, metric, funnel step) at a time. Projects the directory no
 *   longer holds (a re-created slug hard-deletes its predecessor) take the default retention.
 *
 * Hourly metric counts go by hour: a bucket whose hour ended before the cutoff is deleted; the
 * events count rollups likewise by minute and by hour.
 * Nothing else is touched (tables.ts says what and why). The projectors skip expired rows too,
 * so what is removed here does not come back on replay. Safe to run again at any time; run
 * twice at once, the second only finds less to do.
 * @throws the database error when Postgres cannot answer, or what `onStep` throws
 */
export async function removeExpiredRows(pool: DatabasePool, now: Date, onStep?: OnStep): Promise<RetentionCleanupResult> {
  const policy = retentionPolicy(await allProjectRetentions(pool), now.getTime());
  const result: RetentionCleanupResult = {
    partitions_dropped: [],
    events_deleted: 0,
    event_retimed_deleted: 0,
    metric_events_deleted: 0,
    metric_hourly_deleted: 0,
    metric_error_hourly_deleted: 0,
    metric_dimension_rollups_deleted: 0,
    funnel_events_deleted: 0,
    funnel_user_days_deleted: 0,
    event_rollups_deleted: 0,
  };
  const steps: Step[] = [];
  const schemas = new Map<string, string>();
  for (const table of EXPIRING_TABLES) {
    const schema = schemas.get(table.projection) ?? (await activeSchema(pool, table.projection));
    schemas.set(table.projection, schema);
    steps.push(...stepsFor(pool, policy, table, await leavesOf(pool, schema, table.table), result));
  }
  // The funnel summaries go after the funnel events they summarize (funnel-user-days.ts).
  const funnels = schemas.get("funnel_events") ?? (await activeSchema(pool, "funnel_events"));
  steps.push({
    message: `delete expired rows of ${funnels}.funnel_user_days`,
    run: async (progress) => {
      const cutoff = (projectId: string) => policy.cutoff(projectId, "funnels");
      result.funnel_user_days_deleted += await removeExpiredUserDays(pool, funnels, cutoff, (rows) => progress(`${rows} rows`));
    },
  });
  const report = onStep ?? (async () => undefined);
  await report(0, steps.length, `${steps.length} steps`);
  for (const [index, step] of steps.entries()) {
    await step.run((detail) => report(index, steps.length, `${step.message}: ${detail}`));
    await report(index + 1, steps.length, step.message);
  }
  return result;
}

/** The steps of one table: a drop per fully expired month, a delete per leaf that may hold expired rows. */
function stepsFor(pool: DatabasePool, policy: RetentionPolicy, table: ExpiringTable, leaves: Leaf[], result: RetentionCleanupResult): Step[] {
  const expiredEverywhere = policy.expiredEverywhere(table.kind);
  const keptEverywhere = policy.keptEverywhere(table.kind);
  const steps: Step[] = [];
  for (const leaf of leaves) {
    const month = leaf.month;
    const qualified = `${leaf.schema}.${leaf.name}`;
    if (table.monthly && month && month.to.getTime() <= expiredEverywhere.getTime()) {
      steps.push({
        message: `drop ${qualified}`,
        run: async () => {
          const unlinked = await dropMonth(pool, { ...leaf, month }, table.companion?.table);
          if (table.companion) result[table.companion.counter] += unlinked;
          result.partitions_dropped.push(qualified);
        },
      });
      continue;
    }
    // A month that starts at or after the shortest retention's cutoff holds nothing expired.
    if (month && month.from.getTime() >= keptEverywhere.getTime()) continue;
    steps.push({
      message: `delete expired rows of ${qualified}`,
      run: async (progress) => {
        for (const key of await keysIn(pool, leaf, table)) {
          const cutoff = cutoffOf(policy, table, key.projectId);
          if (month && cutoff.getTime() <= month.from.getTime()) continue;
          const deleted = await deleteExpired(pool, leaf, table, key, cutoff, (rows) => (rows > 0 ? progress(`${rows} rows of ${key.values.join("/")}`) : Promise.resolve()));
          result[table.counter] += deleted.rows;
          if (table.companion) result[table.companion.counter] += deleted.companions;
        }
      },
    });
  }
  return steps;
}

/** The project's cutoff for the table: for hourly or minute counts, the start of the bucket it falls in (only whole buckets before it go). */
function cutoffOf(policy: RetentionPolicy, table: ExpiringTable, projectId: string): Date {
  const cutoff = policy.cutoff(projectId, table.kind);
  const bucket = table.hourly ? HOUR_MS : table.minutely ? MINUTE_MS : 0;
  return bucket > 0 ? new Date(Math.floor(cutoff.getTime() / bucket) * bucket) : cutoff;
}
