import { Cron } from "croner";
import type { DatabasePool } from "slonik";
import { SUBPROV } from "../../../domain/integrations/providers.ts";
import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { DomainError } from "../../../domain/shared/errors.ts";
import { derivedId } from "../../../domain/shared/ids.ts";
import { enabledIntegrations } from "../../../projections/integrations/queries.ts";
import type { Log } from "../../../streams/connection.ts";
import { runJobCommand } from "../../commands/job-command.ts";
import type { ScheduledJob } from "../scheduler.ts";
import { scheduledTimeAtOrBefore } from "./job-schedules.ts";

/** Daily at 03:00 UTC (SPEC Ads: "Both jobs run daily at 03:00 UTC (`subprov_sync`)"). */
export const SUBPROV_SYNC_PATTERN = "0 3 * * *";

/**
 * The daily `subprov_sync` of every project with an enabled subscription-provider integration.
 * As with the other per-project schedules, a firing's run id is derived from the type, the project
 * and the time the pattern fired at, so workers firing together append each trigger once; a
 * project whose previous sync is still active is skipped.
 */
export function subprovSyncSchedule(log: Log, pool: DatabasePool): ScheduledJob {
  const clock = new Cron(SUBPROV_SYNC_PATTERN, { paused: true, timezone: "UTC" });
  return {
    name: "subprov_sync",
    pattern: SUBPROV_SYNC_PATTERN,
    run: async () => {
      const firedAt = scheduledTimeAtOrBefore(clock, new Date()).toISOString();
      for (const { project_id: projectId, team_id: teamId } of await enabledIntegrations(pool, SUBPROV)) {
        await runJobCommand(
          log,
          { projectId, jobType: "subprov_sync" },
          {
            type: "TriggerJob",
            runId: derivedId(`schedule:subprov_sync:${projectId}:${firedAt}`),
            jobType: "subprov_sync",
            teamId,
            projectId,
            triggeredBy: "schedule",
            params: { scheduled_at: firedAt },
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
