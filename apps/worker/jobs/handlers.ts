import type { Logger } from "pino";
import type { JobType } from "../../../domain/jobs/catalogue.ts";
import type { CommandDeps } from "../../commands/deps.ts";
import type { AppStoreConfig } from "../../app-store-config.ts";
import type { AdnetReportingConfig } from "../../config.ts";
import type { SubprovSettings } from "../../integrations/subprov-client.ts";
import type { AttachmentStore } from "../../storage/attachment-store.ts";
import { runAttachmentCleanup } from "./attachment-cleanup.ts";
import type { JobHandler } from "./job-context.ts";
import { issueScan } from "./handlers/issue-scan.ts";
import { appRatingsSync } from "./handlers/app-ratings.ts";
import { adnetSync } from "./handlers/adnet-sync.ts";
import { subprovSync, subprovUserBackfill } from "./handlers/subprov-jobs.ts";
import { runIssueDigests } from "./issue-digest.ts";
import { runNotificationCleanup } from "./notification-cleanup.ts";
import { runRetentionCleanup } from "./retention-cleanup.ts";

/** `config` carries the ad account adnet_sync reads (null: not configured), the store app_ratings_sync asks and the subscription provider API the subprov jobs call. */
export type JobHandlerDeps = CommandDeps & { logger: Logger; store: AttachmentStore; config: { adnetReporting: AdnetReportingConfig | null; appStore: AppStoreConfig; subprov: SubprovSettings } };

/** The handler of every job type (docs/jobs.md describes each). */
export function jobHandlers(deps: JobHandlerDeps): Record<JobType, JobHandler> {
  /** Progress of a sweep step by step; each report is also the cooperative cancellation point. */
  const sweep =
    (run: (onStep: (processed: number, total: number, message: string) => Promise<void>) => Promise<Record<string, unknown>>): JobHandler =>
    ({ progress }) =>
      run((processed, total, message) => progress(processed, total, message));
  return {
    issue_scan: issueScan(deps),
    subprov_sync: subprovSync(deps),
    subprov_user_backfill: subprovUserBackfill(deps),
    adnet_sync: adnetSync(deps),
    attachment_cleanup: sweep((onStep) => runAttachmentCleanup(deps, new Date(), onStep)),
    retention_cleanup: sweep((onStep) => runRetentionCleanup(deps, new Date(), onStep)),
    notification_cleanup: sweep((onStep) => runNotificationCleanup(deps, new Date(), onStep)),
    app_ratings_sync: appRatingsSync(deps),
    issue_digest: sweep((onStep) => runIssueDigests(deps, new Date(), onStep)),
  };
}
