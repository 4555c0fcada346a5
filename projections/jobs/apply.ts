import { sql, type DatabaseTransactionConnection } from "slonik";
import { decodeDomainEnvelope } from "../../domain/events.ts";
import { isJobFact, type JobFact } from "../../domain/jobs/events.ts";
import type { Projection } from "../_runtime/projection.ts";

/** One row per job run, moved by its facts; times are the facts' own, so a replay yields the same rows. */
async function applyJobFact(tx: DatabaseTransactionConnection, fact: JobFact, at: string): Promise<void> {
  switch (fact.type) {
    case "JobTriggered":
      await tx.query(sql.unsafe`
        insert into job_runs (id, job_type, status, team_id, project_id, triggered_by, params, notify, created_at)
        values (${fact.run_id}, ${fact.job_type}, 'pending', ${fact.team_id}, ${fact.project_id}, ${fact.triggered_by},
                ${sql.jsonb(fact.params as never)}, ${fact.notify}, ${at})
        on conflict (id) do nothing`);
      return;
    case "JobStarted":
      await tx.query(sql.unsafe`
        update job_runs set status = 'running', started_at = ${at}, lease_until = ${fact.lease_until} where id = ${fact.run_id}`);
      return;
    case "JobProgressed":
      await tx.query(sql.unsafe`
        update job_runs set progress_processed = ${fact.processed}, progress_total = ${fact.total},
               progress_message = ${fact.message}, lease_until = ${fact.lease_until}
         where id = ${fact.run_id}`);
      return;
    case "JobLeaseRenewed":
      await tx.query(sql.unsafe`update job_runs set lease_until = ${fact.lease_until} where id = ${fact.run_id}`);
      return;
    case "JobCompleted":
      await tx.query(sql.unsafe`
        update job_runs set status = 'completed', result = ${sql.jsonb(fact.result as never)}, completed_at = ${at}, lease_until = null
         where id = ${fact.run_id}`);
      return;
    case "JobFailed":
      await tx.query(sql.unsafe`
        update job_runs set status = 'failed', error = ${fact.error}, completed_at = ${at}, lease_until = null where id = ${fact.run_id}`);
      return;
    case "JobCancelled":
      await tx.query(sql.unsafe`
        update job_runs set status = 'cancelled', completed_at = ${at}, lease_until = null where id = ${fact.run_id}`);
      return;
  }
}

export const jobsProjection: Projection = {
  name: "jobs",
  stream: "DOMAIN",
  migrationsDir: new URL("./migrations/", import.meta.url),
  apply: async (tx, facts) => {
    for (const fact of facts) {
      // Most DOMAIN facts are not a job's; the subject tells without decoding the payload.
      if (!fact.subject.includes(".d.job.")) continue;
      const envelope = decodeDomainEnvelope(fact.data);
      for (const event of envelope.events) if (isJobFact(event)) await applyJobFact(tx, event, envelope.at);
    }
  },
};
