import type { DatabasePool } from "slonik";
import type { DomainEvent } from "../../domain/events.ts";
import type { ProgressWatcher } from "../../projections/_runtime/progress.ts";
import type { Log } from "../../streams/connection.ts";
import type { OneAtATime } from "./one-at-a-time.ts";

/**
 * What the command handler needs of the process running it: the API answers requests with it, the
 * worker records what its jobs did. The caches are the API's: a process without them (the worker)
 * has nothing to keep in step with the facts it appends.
 */
export type CommandDeps = {
  config: { readYourWritesTimeoutMs: number };
  log: Log;
  pool: DatabasePool;
  progress: ProgressWatcher;
  oneAtATime: OneAtATime;
  keyCache?: { forget: (facts: DomainEvent[]) => void };
  claims?: { remember: (projectId: string, anonymousId: string, userId: string) => void };
};
