import type { Logger } from "pino";
import type { PurgeReason } from "../../../domain/attachments/events.ts";
import { DELETED_GRACE_MS, ORPHAN_MIN_AGE_MS } from "../../../domain/attachments/rules.ts";
import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { DomainError } from "../../../domain/shared/errors.ts";
import { UUID_PATTERN } from "../../../domain/shared/ids.ts";
import { purgeCandidates, storageKeysOf, type PurgeCandidate } from "../../../projections/attachments/cleanup-queries.ts";
import { runAttachmentCommand } from "../../commands/attachment-command.ts";
import type { CommandDeps } from "../../commands/deps.ts";
import type { AttachmentStore } from "../../storage/attachment-store.ts";

export type AttachmentCleanupDeps = CommandDeps & { store: AttachmentStore; logger: Logger };

/** Reports progress; a throw stops the cleanup there (cooperative cancellation). */
export type CleanupStep = (processed: number, total: number, message: string) => Promise<void>;

export type AttachmentCleanupCounts = {
  deleted_purged: number;
  reservations_expired: number;
  orphaned_objects_deleted: number;
  bytes_freed: number;
  /** Candidates the decider no longer found due (uploaded, or already purged, since they were read). */
  skipped: number;
};

const COUNTER_OF: Record<PurgeReason, "deleted_purged" | "reservations_expired"> = {
  deleted_grace_elapsed: "deleted_purged",
  reservation_expired: "reservations_expired",
};

const REPORT_EVERY = 50;
const KEYS_PER_LOOKUP = 500;

/**
 * The daily attachment cleanup (job `attachment_cleanup`):
 * 1. purges soft-deleted attachments whose 7-day grace ended at `now`, and reservations never
 *    uploaded by their expiry: the AttachmentPurged fact first, then the bytes, so a crash in
 *    between leaves an orphan the next run removes, never a row without its bytes;
 * 2. deletes orphaned objects: stored keys no attachment row points at (a purge that crashed, the
 *    loser of two uploads, an upload whose fact never came). An object younger than an hour, by
 *    `now` and by the wall clock alike, is kept: an upload in progress stores its object before
 *    the fact that names it.
 * Returns what it did. Safe to run again at any time, on any number of workers.
 */
export async function runAttachmentCleanup(deps: AttachmentCleanupDeps, now: Date, onStep: CleanupStep = async () => undefined): Promise<AttachmentCleanupCounts> {
  const counts: AttachmentCleanupCounts = { deleted_purged: 0, reservations_expired: 0, orphaned_objects_deleted: 0, bytes_freed: 0, skipped: 0 };
  const candidates = await purgeCandidates(deps.pool, now, new Date(now.getTime() - DELETED_GRACE_MS));
  await onStep(0, candidates.length, `purging ${candidates.length} attachments`);
  for (const [index, candidate] of candidates.entries()) {
    if (await purge(deps, candidate, now)) {
      counts[COUNTER_OF[candidate.reason]] += 1;
      if (candidate.storage_key !== null) counts.bytes_freed += candidate.size_bytes;
    } else {
      counts.skipped += 1;
    }
    if ((index + 1) % REPORT_EVERY === 0) await onStep(index + 1, candidates.length, `purged ${index + 1} of ${candidates.length} attachments`);
  }
  const orphanCutoff = Math.min(now.getTime(), Date.now()) - ORPHAN_MIN_AGE_MS;
  const orphans = await deleteOrphans(deps, orphanCutoff, (scanned) =>
    onStep(candidates.length + scanned, candidates.length + scanned, `checked ${scanned} stored objects`),
  );
  counts.orphaned_objects_deleted = orphans.deleted;
  const steps = candidates.length + orphans.scanned;
  await onStep(steps, steps, "done");
  deps.logger.info({ component: "attachment-cleanup", ...counts }, "attachment cleanup done");
  return counts;
}

/** Purges one candidate; false when the decider finds it no longer due (it changed since it was read). */
async function purge(deps: AttachmentCleanupDeps, candidate: PurgeCandidate, now: Date): Promise<boolean> {
  try {
    await runAttachmentCommand(
      deps,
      { type: "PurgeAttachment", attachmentId: candidate.id, projectId: candidate.project_id, reason: candidate.reason, now: now.toISOString() },
      SYSTEM_ACTOR,
    );
  } catch (error) {
    if (error instanceof DomainError && (error.code === "conflict" || error.code === "not_found")) return false;
    throw error;
  }
  if (candidate.storage_key !== null) await deps.store.delete(candidate.storage_key);
  return true;
}

/** The attachment id of a key of ours (`<project>/<attachment>/<upload>`); null for anything else, which is left alone. */
function attachmentIdOf(key: string): string | null {
  const segments = key.split("/");
  return segments.length === 3 && UUID_PATTERN.test(segments[1]!) ? segments[1]!.toLowerCase() : null;
}

/** Deletes stored objects older than `cutoffMs` that no attachment row points at; returns how many, and how many it checked. */
async function deleteOrphans(deps: AttachmentCleanupDeps, cutoffMs: number, onBatch: (scanned: number) => Promise<void>): Promise<{ deleted: number; scanned: number }> {
  let deleted = 0;
  let scanned = 0;
  let batch: { key: string; attachmentId: string }[] = [];
  const flush = async () => {
    const live = await storageKeysOf(deps.pool, [...new Set(batch.map((entry) => entry.attachmentId))]);
    for (const { key, attachmentId } of batch) {
      if (live.get(attachmentId) === key) continue;
      await deps.store.delete(key);
      deleted += 1;
    }
    scanned += batch.length;
    batch = [];
    await onBatch(scanned);
  };
  for await (const { key, modifiedAt } of deps.store.list()) {
    const attachmentId = attachmentIdOf(key);
    if (attachmentId === null || modifiedAt.getTime() > cutoffMs) continue;
    batch.push({ key, attachmentId });
    if (batch.length >= KEYS_PER_LOOKUP) await flush();
  }
  if (batch.length > 0) await flush();
  return { deleted, scanned };
}
