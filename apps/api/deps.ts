import type { Logger } from "pino";
import type { DatabasePool } from "slonik";
import type { ProgressWatcher } from "../../projections/_runtime/progress.ts";
import type { Log } from "../../streams/connection.ts";
import type { Config } from "../config.ts";
import type { Mailer } from "../mail.ts";
import type { SessionTokens } from "./auth/jwt.ts";
import type { KeyUsage } from "./auth/key-usage.ts";

/** Everything a route needs, built once in the composition root and passed down. */
export type ApiDeps = {
  config: Config;
  logger: Logger;
  log: Log;
  pool: DatabasePool;
  progress: ProgressWatcher;
  mailer: Mailer;
  keyUsage: KeyUsage;
  tokens: SessionTokens;
};
