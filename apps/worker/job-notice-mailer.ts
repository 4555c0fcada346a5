import type { Logger } from "pino";
import type { DatabasePool } from "slonik";
import { decodeDomainEnvelope } from "../../domain/events.ts";
import { keyCreator } from "../../projections/directory/key-queries.ts";
import { userById } from "../../projections/directory/queries.ts";
import { jobRunById, type JobRunRow } from "../../projections/jobs/queries.ts";
import type { Log } from "../../streams/connection.ts";
import { runDurable } from "../../streams/durable.ts";
import type { Mailer } from "../mail.ts";

type Deps = { log: Log; pool: DatabasePool; mailer: Mailer; logger: Logger; publicBaseUrl: string };

/**
 * Emails the user who triggered a run with `notify: true` once it completes or fails: the user
 * named by `manual:user:<id>`, or the creator of the key named by `manual:api_key:<id>`.
 */
export function startJobNoticeMailer(deps: Deps) {
  return runDurable(deps.log, {
    name: "job_notice_mailer",
    stream: "DOMAIN",
    filter: "job.>",
    logger: deps.logger,
    handle: async (message) => {
      for (const event of decodeDomainEnvelope(message.data).events) {
        if (event.type !== "JobCompleted" && event.type !== "JobFailed") continue;
        const run = await jobRunById(deps.pool, event.run_id);
        // The read model has not applied the trigger yet: a throw redelivers the message shortly.
        if (!run) throw new Error(`job run ${event.run_id} is not in the read model yet`);
        if (!run.notify) continue;
        const to = await recipientOf(deps.pool, run);
        if (to === null) continue;
        const outcome = event.type === "JobCompleted" ? "completed" : "failed";
        await deps.mailer.send({
          to,
          subject: `Job ${run.job_type} ${outcome}`,
          text:
            `The ${run.job_type} job you started ${outcome}.\n\n` +
            (event.type === "JobCompleted" ? `Result: ${JSON.stringify(event.result)}\n` : `Error: ${event.error}\n`) +
            `\nRun: ${run.id}\nDetails: ${deps.publicBaseUrl}/dashboard/jobs?run=${run.id}\n`,
        });
      }
    },
  });
}

async function recipientOf(pool: DatabasePool, run: JobRunRow): Promise<string | null> {
  const [, kind, id] = run.triggered_by.split(":");
  const userId = kind === "user" ? id : kind === "api_key" && id ? await keyCreator(pool, id) : null;
  if (!userId) return null;
  return (await userById(pool, userId))?.email ?? null;
}
