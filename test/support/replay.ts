import { factSourceOf } from "../../apps/projector/fact-source.ts";
import type { ReplayDeps } from "../../projections/_runtime/replay.ts";
import { spawnTsx, type OwnedProcess } from "./processes.ts";
import { serviceEnv, type TestService } from "./service.ts";

/** What `replay()` (projections/_runtime/replay.ts) needs, taken from a running test service. */
export const replayDeps = (service: TestService): ReplayDeps => ({
  source: factSourceOf(service.log),
  pool: service.pool,
  databaseUrl: service.databaseUrl,
  logger: service.logger,
});

/** Runs the operator CLI's `replay <projection>` against `service` in its own process; await `.exited`. */
export function runReplayCli(service: TestService, projection: string): OwnedProcess {
  return spawnTsx("apps/cli/main.ts", serviceEnv(service.config), ["replay", projection]);
}
