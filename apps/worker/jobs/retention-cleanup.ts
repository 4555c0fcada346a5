import type { Logger } from "pino";
import type { DatabasePool } from "slonik";
import { DEFAULT_RETENTION, expiresBefore, longestRetentionDays } from "../../../domain/projects/retention.ts";
import { activeCheckpoints } from "../../../projections/_runtime/checkpoint-queries.ts";
import { allProjectRetentions } from "../../../projections/directory/retention-queries.ts";
import { removeExpiredRows, type OnStep, type RetentionCleanupResult } from "../../../projections/retention/cleanup.ts";
import type { Log } from "../../../streams/connection.ts";
import { projectsWithBatches, purgeIngestBefore } from "../../../streams/purge.ts";

export type RetentionCleanupDeps = { pool: DatabasePool; log: Log; logger: Logger };

export type RetentionRunResult = RetentionCleanupResult & {
  /** Event batches purged from the INGEST stream, in all. */
  ingest_messages_purged: number;
  /** The projects whose event batches were purged: stored before `before`, their longest retention. */
  ingest_purged: { project_id: string; before: string; purged: number }[];
};

/**
 * The retention job: removes expired rows from the read models (projections/retention/cleanup.ts),
 * then purges from the INGEST stream each project's event batches stored before `now` minus the
 * project's LONGEST retention of the three, so every read model can still be rebuilt for all it
 * keeps. Identity facts stay (streams/purge.ts). Projects the directory no longer holds take the
 * defaults, and nothing the INGEST read models have not all applied is purged. Steps are counted
 * across both parts; `onStep` may throw to stop between them.
 * @throws the database or log error when Postgres or NATS cannot answer, or what `onStep` throws
 */
export async function runRetentionCleanup(deps: RetentionCleanupDeps, now: Date, onStep?: OnStep): Promise<RetentionRunResult> {
  const report = onStep ?? (async () => undefined);
  const projects = await projectsWithBatches(deps.log);
  let rowSteps = 0;
  const rows = await removeExpiredRows(deps.pool, now, async (processed, total, message) => {
    rowSteps = total;
    await report(processed, total + projects.length, message);
  });

  const retentions = new Map((await allProjectRetentions(deps.pool)).map((project) => [project.projectId, project.retention]));
  const ingestCheckpoints = (await activeCheckpoints(deps.pool)).filter((checkpoint) => checkpoint.stream === "INGEST");
  const appliedThrough = Math.min(...ingestCheckpoints.map((checkpoint) => checkpoint.last_seq));
  const total = rowSteps + projects.length;
  const result: RetentionRunResult = { ...rows, ingest_messages_purged: 0, ingest_purged: [] };
  for (const [index, projectId] of projects.entries()) {
    const before = expiresBefore(longestRetentionDays(retentions.get(projectId) ?? DEFAULT_RETENTION), now.getTime());
    const purged = await purgeIngestBefore(deps.log, { projectId, before, appliedThrough: Number.isFinite(appliedThrough) ? appliedThrough : 0 });
    if (purged.purged > 0) result.ingest_purged.push({ project_id: projectId, before: before.toISOString(), purged: purged.purged });
    result.ingest_messages_purged += purged.purged;
    await report(rowSteps + index + 1, total, `purge the event batches of project ${projectId} stored before ${before.toISOString()}`);
  }
  deps.logger.info(
    { partitions_dropped: rows.partitions_dropped.length, events_deleted: rows.events_deleted, ingest_messages_purged: result.ingest_messages_purged },
    "retention cleanup done",
  );
  return result;
}
