import type { JobType } from "../../domain/jobs/catalogue.ts";
import { newId } from "../../domain/shared/ids.ts";
import { waitUntilVisible } from "../commands/command-handler.ts";
import { runJobCommand } from "../commands/job-command.ts";
import { actorOf } from "./auth/access.ts";
import { triggeredByOf, type Principal } from "./auth/principal.ts";
import type { ApiDeps } from "./deps.ts";

export type JobStart = { teamId: string; projectId: string | null; jobType: JobType; params?: Record<string, unknown>; notify?: boolean };

/**
 * Triggers a run for `caller` and answers its id once the jobs read model shows it, so the next
 * read finds the run. Every route that starts a job (the jobs route, the subprov and ads syncs)
 * goes through here.
 * @throws DomainError conflict with `existing_run_id` while a run of the type is active for the project
 */
export async function startJob(deps: ApiDeps, caller: Principal, start: JobStart): Promise<string> {
  const runId = newId();
  const { teamId, projectId, jobType } = start;
  const { seq } = await runJobCommand(
    deps.log,
    { projectId, jobType },
    { type: "TriggerJob", runId, jobType, teamId, projectId, triggeredBy: triggeredByOf(caller), params: start.params ?? {}, notify: start.notify ?? false },
    actorOf(caller),
  );
  if (seq !== null) await waitUntilVisible(deps, seq, ["jobs"]);
  return runId;
}
