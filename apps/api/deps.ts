import type { Logger } from "pino";
import type { DatabasePool } from "slonik";
import type { ProgressWatcher } from "../../projections/_runtime/progress.ts";
import type { Log } from "../../streams/connection.ts";
import type { Config } from "../config.ts";
import type { Mailer } from "../mail.ts";
import type { AttachmentStore } from "../storage/attachment-store.ts";
import type { DownloadTokens } from "./attachments/download-token.ts";
import type { SignInCodes } from "./auth/codes.ts";
import type { SessionTokens } from "./auth/jwt.ts";
import type { KeyUsage } from "./auth/key-usage.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { InstanceState } from "./instance-state.ts";

/**
 * Everything a route needs, built once in the composition root and passed down. The instance's
 * own memory (key cache, rate buckets, write queues, claim cache) comes with `InstanceState`.
 */
export type ApiDeps = InstanceState & {
  config: Config;
  logger: Logger;
  log: Log;
  pool: DatabasePool;
  progress: ProgressWatcher;
  mailer: Mailer;
  keyUsage: KeyUsage;
  tokens: SessionTokens;
  /** Sign-in codes of this instance: it owns the per-email queues of code checks. */
  codes: SignInCodes;
  /** Where attachment bytes live (filesystem or S3). */
  attachments: AttachmentStore;
  /** Signs and checks the 60-second attachment download URLs. */
  downloadTokens: DownloadTokens;
  /** This process's Prometheus metrics, served at `/metrics`. */
  metrics: Metrics;
};
