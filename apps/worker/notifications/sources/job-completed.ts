import type { DatabasePool } from "slonik";
import type { DomainEvent } from "../../../../domain/events.ts";
import { keyCreator } from "../../../../projections/directory/key-queries.ts";
import { jobRunById, type JobRunRow } from "../../../../projections/jobs/queries.ts";
import type { NoticeDraft, NotificationSource, SourceDeps } from "../source.ts";

/** The user who triggered a run: `manual:user:<id>`, or the creator of the key in `manual:api_key:<id>`. */
async function triggeringUser(pool: DatabasePool, run: JobRunRow): Promise<string | null> {
  const [, kind, id] = run.triggered_by.split(":");
  if (kind === "user" && id) return id;
  if (kind === "api_key" && id) return keyCreator(pool, id);
  return null;
}

async function noticeOf(event: DomainEvent, { pool, publicBaseUrl }: SourceDeps): Promise<NoticeDraft | null> {
  if (event.type !== "JobCompleted" && event.type !== "JobFailed") return null;
  const run = await jobRunById(pool, event.run_id);
  // The read model has not applied the trigger yet: a throw redelivers the message shortly.
  if (!run) throw new Error(`job run ${event.run_id} is not in the read model yet`);
  if (!run.notify) return null;
  const userId = await triggeringUser(pool, run);
  if (userId === null) return null;
  const outcome = event.type === "JobCompleted" ? "completed" : "failed";
  const detail = event.type === "JobCompleted" ? `Result: ${JSON.stringify(event.result)}` : `Error: ${event.error}`;
  return {
    userId,
    type: "job.completed",
    title: `Job ${run.job_type} ${outcome}`,
    body: `The ${run.job_type} job you started ${outcome}.\n${detail}\nRun: ${run.id}`,
    link: `${publicBaseUrl}/dashboard/jobs`,
    teamId: run.team_id,
    data: { run_id: run.id, job_type: run.job_type, status: outcome, project_id: run.project_id },
    channels: ["email", "push"],
  };
}

/**
 * `job.completed`: a manual run with `notify: true` completed or failed; the user who triggered it
 * hears of it in the inbox, by email and by push (docs/notifications.md).
 */
export const jobCompletedSource: NotificationSource = {
  name: "job_completed",
  filter: "job.>",
  wanted: (type) => type === "JobCompleted" || type === "JobFailed",
  notices: async (envelope, deps) => {
    const drafts: NoticeDraft[] = [];
    for (const event of envelope.events) {
      const draft = await noticeOf(event, deps);
      if (draft) drafts.push(draft);
    }
    return drafts;
  },
};
