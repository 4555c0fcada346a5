import type { UserClaimed } from "../../../domain/identity/events.ts";
import { conflict } from "../../../domain/shared/errors.ts";
import { projectAppIds } from "../../../projections/directory/catalog-queries.ts";
import { countUserEvents } from "../../../projections/events/queries.ts";
import { claimerOf } from "../../../projections/app-users/records.ts";
import { ingestProjections } from "../../../projections/registry.ts";
import { streamHead } from "../../../streams/stream-head.ts";
import type { ApiDeps } from "../deps.ts";
import { appendIdentityFact, decideOnSubject, factHeader } from "./append.ts";
import type { IdentityCaller } from "./caller.ts";

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
 * events read model just before the append; the same rows are then moved by the events
 * projector when it applies the fact. A claim already made answers 0 without a new fact, unless
 * stray events still carry the anonymous id (sent through another API instance in the moment of
 * the claim): then the claim is appended again to sweep them, and they are the count.
 * @throws DomainError conflict when another user already claimed the anonymous id
 */
export async function claim(deps: ApiDeps, caller: IdentityCaller, anonymousId: string, userId: string): Promise<number> {
  const { projectId } = caller;
  const subject = deps.log.names.identitySubject(projectId, anonymousId);
  return decideOnSubject(deps, async () => ({ subject }), async (_, version): Promise<number | null> => {
    const claimer = await claimerOf(deps.pool, projectId, anonymousId);
    if (claimer !== null && claimer !== userId) throw conflict("anonymous_id was already claimed by another user");
    const appIds = await projectAppIds(deps.pool, projectId);
    await eventsCaughtUp(deps);
    const moved = await countUserEvents(deps.pool, appIds, anonymousId);
    if (claimer === userId && moved === 0) return 0;
    const fact: UserClaimed = {
      type: "UserClaimed",
      ...factHeader(caller),
      app_ids: [...appIds],
      anonymous_id: anonymousId,
      user_id: userId,
    };
    if ((await appendIdentityFact(deps, subject, version, fact, ingestProjections())) === null) return null;
    deps.claims.remember(projectId, anonymousId, userId);
    return moved;
  });
}
