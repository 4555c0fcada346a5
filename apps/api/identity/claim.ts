import { claimedByAnother, identityDecider } from "../../../domain/identity/decider.ts";
import { identityStateOf } from "../../../projections/app-users/records.ts";
import { projectAppIds } from "../../../projections/directory/catalog-queries.ts";
import { countUserEvents } from "../../../projections/events/queries.ts";
import { streamHead } from "../../../streams/stream-head.ts";
import { handleCommand } from "../../commands/command-handler.ts";
import type { ApiDeps } from "../deps.ts";
import { originOf, type IdentityCaller } from "./caller.ts";

/** How long a claim waits for acknowledged events to become countable before counting anyway. */
const COUNT_WAIT_MS = 2_000;

/**
 * Lets the events read model apply every batch acknowledged before this moment, so the count
 * includes events the SDK sent just before the claim.
 */
async function eventsCaughtUp(deps: ApiDeps): Promise<void> {
  const head = await streamHead(deps.log, "INGEST");
  await deps.progress.waitFor(["events"], head, Math.min(COUNT_WAIT_MS, deps.config.readYourWritesTimeoutMs));
}

/**
 * Claims `anonymousId` for `userId` across the project and returns how many events moved.
 * The fact goes on the anonymous id's subject with optimistic concurrency, so two claims of one
 * anonymous id are serialized: the log only ever holds valid claims. The count is taken from the
 * events read model just before the append, on every attempt; the same rows are then moved by the
 * events projector when it applies the fact. A claim already made answers 0 without a new fact,
 * unless stray events still carry the anonymous id (sent through another API instance in the
 * moment of the claim): then the claim is appended again to sweep them, and they are the count.
 * @throws DomainError conflict when another user already claimed the anonymous id
 */
export async function claim(deps: ApiDeps, caller: IdentityCaller, anonymousId: string, userId: string): Promise<number> {
  const { projectId } = caller;
  const { facts, command } = await handleCommand(deps, {
    aggregate: { type: "identity", projectId, locate: async () => anonymousId },
    decider: identityDecider,
    load: (id) => identityStateOf(deps.pool, projectId, id),
    command: async (state) => {
      const claiming = { type: "ClaimUser" as const, origin: originOf(caller), anonymousId, userId };
      // Refused whatever the count: answer without waiting for the events read model.
      if (claimedByAnother(state, userId)) return { ...claiming, appIds: [], strays: 0 };
      const appIds = await projectAppIds(deps.pool, projectId);
      await eventsCaughtUp(deps);
      return { ...claiming, appIds: [...appIds], strays: await countUserEvents(deps.pool, appIds, anonymousId) };
    },
  });
  // The events the deciding attempt counted are the ones its fact moves; no fact, nothing moved.
  return facts.length > 0 && command.type === "ClaimUser" ? command.strays : 0;
}
