import { Cron } from "croner";
import type { SystemJobType } from "../../../domain/jobs/catalogue.ts";
import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { DomainError } from "../../../domain/shared/errors.ts";
import { derivedId } from "../../../domain/shared/ids.ts";
import type { Log } from "../../../streams/connection.ts";
import { runJobCommand } from "../../commands/job-command.ts";
import type { ScheduledJob } from "../scheduler.ts";

/** When each system job runs (UTC); `JOB_SCHEDULES` replaces any of them (docs/jobs.md). */
export const DEFAULT_SCHEDULES: Record<SystemJobType, string> = {
  retention_cleanup: "0 4 * * *",
  attachment_cleanup: "0 5 * * *",
  notification_cleanup: "15 5 * * *",
  app_ratings_sync: "0 6 * * *",
  // Every hour, a minute past: the projects whose digest period just ended get their digest.
  issue_digest: "1 * * * *",
};

/**
 * The scheduled triggers of the system jobs. Every worker runs the same schedules; a firing's run
 * id is derived from the type, the scope and the time the pattern fired at, so the workers that
 * fire together append one trigger (the stream's dedup and the one-active-run rule turn the
 * others into no-ops) and one worker takes the run.
 */
export function systemJobSchedules(log: Log, overrides: Partial<Record<SystemJobType, string>>): ScheduledJob[] {
  const schedules: ScheduledJob[] = [];
  for (const [jobType, fallback] of Object.entries(DEFAULT_SCHEDULES) as [SystemJobType, string][]) {
    const pattern = overrides[jobType] ?? fallback;
    if (pattern === "off") continue;
    const clock = new Cron(pattern, { paused: true, timezone: "UTC" });
    schedules.push({
      name: jobType,
      pattern,
      run: async () => {
        const firedAt = scheduledTimeAtOrBefore(clock, new Date()).toISOString();
        const runId = derivedId(`schedule:${jobType}:system:${firedAt}`);
        await runJobCommand(
          log,
          { projectId: null, jobType },
          { type: "TriggerJob", runId, jobType, teamId: null, projectId: null, triggeredBy: "schedule", params: { scheduled_at: firedAt }, notify: false },
          SYSTEM_ACTOR,
        ).catch((error: unknown) => {
          // The previous scheduled run still active: this firing is skipped, as any overlap would be.
          if (error instanceof DomainError && error.code === "conflict") return;
          throw error;
        });
      },
    });
  }
  return schedules;
}

/**
 * The time `clock`'s pattern fired at most recently as of `now`: the same instant on every worker
 * whatever its callback's delay (up to a minute late; a timer that fires a few milliseconds early
 * is allowed half a second).
 */
export function scheduledTimeAtOrBefore(clock: Cron, now: Date): Date {
  const latest = new Date(now.getTime() + 500);
  let fired: Date | null = null;
  for (let next = clock.nextRun(new Date(now.getTime() - 60_000)); next !== null && next <= latest; next = clock.nextRun(next)) fired = next;
  return fired ?? new Date(Math.floor(now.getTime() / 1_000) * 1_000);
}
