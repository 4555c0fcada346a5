import type { Logger } from "pino";
import type { DatabasePool } from "slonik";
import { ProgressWatcher } from "../../projections/_runtime/progress.ts";
import type { Log } from "../../streams/connection.ts";
import { OneAtATime } from "../commands/one-at-a-time.ts";
import type { Config } from "../config.ts";
import { createMailer } from "../mail.ts";
import type { AttachmentStore } from "../storage/attachment-store.ts";
import { startInvitationMailer } from "./invitation-mailer.ts";
import { startIssueDetector } from "./issue-detector.ts";
import { jobHandlers } from "./jobs/handlers.ts";
import { adnetSyncSchedule } from "./jobs/adnet-sync-schedule.ts";
import { issueScanSchedule } from "./jobs/issue-scan-schedule.ts";
import { subprovSyncSchedule } from "./jobs/subprov-schedule.ts";
import { startSubprovTransfers } from "./subprov-transfers.ts";
import { JobRunner } from "./jobs/job-runner.ts";
import { systemJobSchedules } from "./jobs/job-schedules.ts";
import { apnsGateway } from "./notifications/apns.ts";
import { startNotificationDelivery } from "./notifications/delivery.ts";
import { startNotificationSources } from "./notifications/dispatcher.ts";
import { NOTIFICATION_SOURCES } from "./notifications/sources/index.ts";
import { Scheduler } from "./scheduler.ts";
import type { Metrics } from "../observability/metrics.ts";

export type WorkerInfrastructure = { config: Config; logger: Logger; log: Log; pool: DatabasePool; store: AttachmentStore; metrics: Metrics };

/**
 * The worker: job runs and their schedules, and the side effects of facts (invitation mail, the
 * notification dispatcher: inbox, email and push). Several workers may run against one namespace (apps/worker/jobs says how they
 * share the work). Returns its stop, which lets running jobs reach their next step first.
 */
export async function startWorker({ config, logger, log, pool, store, metrics }: WorkerInfrastructure): Promise<{ stop: () => Promise<void> }> {
  const progress = new ProgressWatcher(config.databaseUrl, logger);
  await progress.start();
  const mailer = createMailer(config);
  const oneAtATime = new OneAtATime();
  const finished = (jobType: string, outcome: string) => metrics.jobRuns.inc({ job_type: jobType, outcome });
  const runner = new JobRunner({ log, pool, logger, config, finished }, jobHandlers({ config, log, pool, progress, oneAtATime, logger, store }));
  runner.start();
  const scheduler = new Scheduler([...systemJobSchedules(log, config.jobSchedules), issueScanSchedule(log, pool), subprovSyncSchedule(log, pool), ...adnetSyncSchedule(log, pool, config.adnetReporting !== null)], logger);
  scheduler.start();
  // Without APNs settings push is off (docs/notifications.md).
  const push = config.apns ? apnsGateway(config.apns) : null;
  const consumers = [
    startInvitationMailer({ log, mailer, logger, publicBaseUrl: config.publicBaseUrl }),
    ...startNotificationSources({ config, log, pool, progress, oneAtATime, logger, publicBaseUrl: config.publicBaseUrl }, NOTIFICATION_SOURCES),
    startNotificationDelivery({ config, log, pool, progress, oneAtATime, logger, mailer, push }),
    startIssueDetector({ config, log, pool, progress, oneAtATime, logger }),
    startSubprovTransfers({ config, log, pool, progress, oneAtATime, logger, subprov: config.subprov }),
  ];
  return {
    stop: async () => {
      await scheduler.stop();
      await runner.stop();
      for (const consumer of consumers) await consumer.stop();
      await progress.stop();
      mailer.close();
      push?.close();
    },
  };
}
