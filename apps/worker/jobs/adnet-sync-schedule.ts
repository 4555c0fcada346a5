import { Cron } from "croner";
import type { DatabasePool } from "slonik";
import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { DomainError } from "../../../domain/shared/errors.ts";
import { derivedId } from "../../../domain/shared/ids.ts";
import { projectsWithAttributedUsers } from "../../../projections/ads/queries.ts";
import type { Log } from "../../../streams/connection.ts";
import { runJobCommand } from "../../commands/job-command.ts";
import type { ScheduledJob } from "../scheduler.ts";
import { scheduledTimeAtOrBefore } from "./job-schedules.ts";

/** Daily at 04:45 UTC (SPEC, Ads). */
export const ADNET_SYNC_PATTERN = "45 4 * * *";

/**
 * The daily `adnet_sync` of every active project with at least one user attributed to a search ad
 * (the ad account is the instance's, so "a project with the integration" is a project whose users
 * came from it; docs/decisions.md, Ads). Without a configured account the schedule does not exist:
 * every run would fail the same way. As with the other schedules, a firing's run id derives from
 * the type, the project and the time the pattern fired at, so workers firing together append each
 * trigger once, and a project whose previous sync is still active is skipped.
 */
export function adnetSyncSchedule(log: Log, pool: DatabasePool, configured: boolean): ScheduledJob[] {
  if (!configured) return [];
  const clock = new Cron(ADNET_SYNC_PATTERN, { paused: true, timezone: "UTC" });
  return [
    {
      name: "adnet_sync",
      pattern: ADNET_SYNC_PATTERN,
      run: async () => {
        const firedAt = scheduledTimeAtOrBefore(clock, new Date()).toISOString();
        for (const { project_id: projectId, team_id: teamId } of await projectsWithAttributedUsers(pool)) {
          const runId = derivedId(`schedule:adnet_sync:${projectId}:${firedAt}`);
          await runJobCommand(
            log,
            { projectId, jobType: "adnet_sync" },
            { type: "TriggerJob", runId, jobType: "adnet_sync", teamId, projectId, triggeredBy: "schedule", params: { scheduled_at: firedAt }, notify: false },
            SYSTEM_ACTOR,
          ).catch((error: unknown) => {
            if (error instanceof DomainError && error.code === "conflict") return;
            throw error;
          });
        }
      },
    },
  ];
}
