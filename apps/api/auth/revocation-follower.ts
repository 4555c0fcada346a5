import type { Logger } from "pino";
import type { ProgressWatcher } from "../../../projections/_runtime/progress.ts";
import type { Log } from "../../../streams/connection.ts";
import { isDirectoryEventType } from "../../../domain/events.ts";
import { followDomain, type Following } from "../../../streams/follow.ts";
import type { KeyCache } from "./key-cache.ts";
import { revocationIn } from "./revocations.ts";

/** How long one wait for the directory lasts before it is logged and renewed. */
const DIRECTORY_WAIT_MS = 10_000;

export type RevocationFollowerDeps = {
  log: Log;
  logger: Logger;
  progress: ProgressWatcher;
  keyCache: Pick<KeyCache<object>, "forgetRevoked" | "clear" | "hold">;
};

/**
 * Keeps this API instance's key cache true to revocations made through any instance: follows the
 * DOMAIN stream and, on a fact that revokes keys, forgets them at once and once more when the
 * directory has applied the fact (a request in between reads the row the projector has not changed
 * yet); nothing new is cached meanwhile. While the stream is not being followed (at the start, or
 * after the connection or consumer was lost) no key is cached at all: a revocation could pass
 * unseen. Resolves once the follower has made its first attempt to open.
 * Throws nothing.
 */
export async function followRevocations(deps: RevocationFollowerDeps): Promise<Following> {
  const { keyCache, progress } = deps;
  const logger = deps.logger.child({ component: "revocations" });
  let stopped = false;
  let releaseUnfollowed: (() => void) | undefined = keyCache.hold();

  function forgetAgainWhenApplied(seq: number, forget: () => void): void {
    const release = keyCache.hold();
    void (async () => {
      for (let waits = 1; !stopped && !(await progress.waitFor(["directory"], seq, DIRECTORY_WAIT_MS)); waits += 1) {
        logger.warn({ seq, waitedMs: waits * DIRECTORY_WAIT_MS }, "the directory has not applied a revocation yet; API keys are not cached meanwhile");
      }
      forget();
      release();
    })();
  }

  const following = await followDomain(deps.log, logger, {
    // Only directory facts bind credentials (revocations.ts); the rest are not even validated here.
    wanted: isDirectoryEventType,
    fact: (envelope, seq) => {
      const revocation = revocationIn(envelope.events);
      if (revocation === null) return;
      keyCache.forgetRevoked(revocation);
      forgetAgainWhenApplied(seq, () => keyCache.forgetRevoked(revocation));
    },
    unreadable: (seq, error) => {
      logger.error({ err: error, seq }, "a domain fact does not decode; forgetting every cached API key");
      keyCache.clear();
      forgetAgainWhenApplied(seq, () => keyCache.clear());
    },
    following: () => {
      releaseUnfollowed?.();
      releaseUnfollowed = undefined;
      logger.info("following the domain stream; API keys are cached");
    },
    lost: (reason) => {
      releaseUnfollowed ??= keyCache.hold();
      keyCache.clear();
      logger.warn({ reason }, "lost the domain stream; API keys are not cached until it is back");
    },
  });
  return {
    stop: async () => {
      stopped = true;
      await following.stop();
    },
  };
}
