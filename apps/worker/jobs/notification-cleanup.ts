import { PURGE_AFTER_MS } from "../../../domain/notifications/rules.ts";
import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { DomainError } from "../../../domain/shared/errors.ts";
import { notificationsDeletedBefore } from "../../../projections/notifications/queries.ts";
import type { CommandDeps } from "../../commands/deps.ts";
import { runInboxCommand } from "../../commands/notification-command.ts";
import type { CleanupStep } from "./attachment-cleanup.ts";

const PAGE = 500;
const REPORT_EVERY = 50;

/**
 * The daily notification cleanup (job `notification_cleanup`): a `NotificationPurged` fact for each
 * notification soft-deleted at least 90 days before `now`, decided again on its inbox subject, so a
 * replay deletes the same rows. Returns `{deleted}`. Safe to run again, on any number of workers:
 * a notification another run purged first is skipped.
 */
export async function runNotificationCleanup(deps: CommandDeps, now: Date, onStep: CleanupStep = async () => undefined): Promise<{ deleted: number }> {
  const before = new Date(now.getTime() - PURGE_AFTER_MS);
  let deleted = 0;
  let seen = 0;
  for (;;) {
    const candidates = await notificationsDeletedBefore(deps.pool, before, PAGE);
    if (candidates.length === 0) break;
    let purgedThisPage = 0;
    for (const candidate of candidates) {
      try {
        await runInboxCommand(deps, { type: "PurgeNotification", notificationId: candidate.id, userId: candidate.user_id, now: now.toISOString() }, SYSTEM_ACTOR);
        deleted += 1;
        purgedThisPage += 1;
      } catch (error) {
        // Purged by another run since it was listed.
        if (!(error instanceof DomainError && (error.code === "not_found" || error.code === "conflict"))) throw error;
      }
      seen += 1;
      if (seen % REPORT_EVERY === 0) await onStep(seen, seen, `purged ${deleted} notifications`);
    }
    // A page of nothing but skips would come back unchanged: stop rather than loop on it.
    if (purgedThisPage === 0 || candidates.length < PAGE) break;
  }
  await onStep(seen, seen, `purged ${deleted} notifications`);
  return { deleted };
}
