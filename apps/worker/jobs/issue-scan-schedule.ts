import { Cron } from "croner";
import type { DatabasePool } from "slonik";
import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { DomainError } from "../../../domain/shared/errors.ts";
import { derivedId } from "../../../domain/shared/ids.ts";
import { projectsWithErrorsSince } from "../../../projections/events/queries.ts";
import type { Log } from "../../../streams/connection.ts";
import { runJobCommand } from "../../commands/job-command.ts";
import type { ScheduledJob } from "../scheduler.ts";
import { scheduledTimeAtOrBefore } from "./job-schedules.ts";

/** Hourly, at minute 0 (UTC). */
export const ISSUE_SCAN_PATTERN = "0 * * * *";
/** The scheduled scan looks back two hours: the hour that passed and the one before, so a late detector batch near the boundary is covered. */
const SCHEDULED_WINDOW_HOURS = 2;

/**
 * The hourly `issue_scan` of every project that had error events in the last hour, the safety net
 * behind the detector (docs/jobs.md). Projects without errors cost nothing. As with the system
 * schedules, a firing's run id is derived from the type, the project and the time the pattern
 * fired at, so workers firing together append each trigger once; a project whose previous scan
 * is still active is skipped.
 */
export function issueScanSchedule(log: Log, pool: DatabasePool): ScheduledJob {
  const clock = new Cron(ISSUE_SCAN_PATTERN, { paused: true, timezone: "UTC" });
  return {
    name: "issue_scan",
    pattern: ISSUE_SCAN_PATTERN,
    run: async () => {
      const fired = scheduledTimeAtOrBefore(clock, new Date());
      const firedAt = fired.toISOString();
      const projects = await projectsWithErrorsSince(pool, new Date(fired.getTime() - 3_600_000));
      for (const { project_id: projectId, team_id: teamId } of projects) {
        const runId = derivedId(`schedule:issue_scan:${projectId}:${firedAt}`);
        await runJobCommand(
          log,
          { projectId, jobType: "issue_scan" },
          {
            type: "TriggerJob",
            runId,
            jobType: "issue_scan",
            teamId,
            projectId,
            triggeredBy: "schedule",
            params: { window_hours: SCHEDULED_WINDOW_HOURS, scheduled_at: firedAt },
            notify: false,
          },
          SYSTEM_ACTOR,
        ).catch((error: unknown) => {
          if (error instanceof DomainError && error.code === "conflict") return;
          throw error;
        });
      }
    },
  };
}
