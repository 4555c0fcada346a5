import { LRUCache } from "lru-cache";
import type { CommonQueryMethods } from "slonik";
import { isAnonymousId } from "../../domain/identity/events.ts";
import { claimersOf, claimKey } from "./records.ts";

/**
 * A claim never changes once made, so a found claimer is kept (least recently used dropped first);
 * "not claimed" can change at any moment, so it is kept only briefly. A claim made through this
 * API instance is remembered at once; one made through another instance is seen here within
 * UNCLAIMED_TTL_MS, and activity slipping through that window is still moved by the read models
 * (see projections/app-users/README.md).
 */
const UNCLAIMED_TTL_MS = 1_000;
const MAX_ENTRIES = 50_000;

/**
 * Which anonymous ids of a project were claimed, and by whom, for the ingest route's
 * re-attribution (SPEC Ingest rule 6). Each API owns one (`deps.claims`), with its own cache.
 */
export class ClaimLookup {
  /** claimKey → claiming user id. */
  readonly #claimed = new LRUCache<string, string>({ max: MAX_ENTRIES });
  /** claimKey of ids found unclaimed, each for UNCLAIMED_TTL_MS. */
  readonly #unclaimed = new LRUCache<string, true>({ max: MAX_ENTRIES, ttl: UNCLAIMED_TTL_MS });

  constructor(private readonly db: CommonQueryMethods) {}

  /** Records a claim this instance just made, so its ingest requests re-attribute without waiting. */
  remember(projectId: string, anonymousId: string, userId: string): void {
    const key = claimKey(projectId, anonymousId);
    this.#unclaimed.delete(key);
    this.#claimed.set(key, userId);
  }

  /** The user that claimed `anonymousId` in the project, or null. @throws slonik errors when the read fails */
  async claimedUserOf(projectId: string, anonymousId: string): Promise<string | null> {
    return (await this.#claimedUsersOf(projectId, [anonymousId])).get(anonymousId) ?? null;
  }

  /**
   * Re-attributes events carrying an already-claimed anonymous id to the claiming user, in place.
   * The ingest route calls it on the normalized events before it encodes the fact: a batch without
   * anonymous ids (most) costs one scan, with no allocation, cache lookup or query.
   * @throws slonik errors when the read fails
   */
  async reattribute(projectId: string, events: { user_id: string | null }[]): Promise<void> {
    let anonymous: Set<string> | undefined;
    for (const event of events) {
      if (event.user_id !== null && isAnonymousId(event.user_id)) (anonymous ??= new Set()).add(event.user_id);
    }
    if (anonymous === undefined) return;
    const claimed = await this.#claimedUsersOf(projectId, anonymous);
    if (claimed.size === 0) return;
    for (const event of events) {
      const claimer = event.user_id === null ? undefined : claimed.get(event.user_id);
      if (claimer !== undefined) event.user_id = claimer;
    }
  }

  /**
   * The users that claimed any of `userIds` (only anonymous ids can be claimed) in the project, as
   * a map from anonymous id to claiming user id. One query for all ids the cache does not answer.
   */
  async #claimedUsersOf(projectId: string, userIds: Iterable<string | null>): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const unknown = new Set<string>();
    for (const userId of userIds) {
      if (userId === null || !isAnonymousId(userId) || found.has(userId)) continue;
      const key = claimKey(projectId, userId);
      const claimer = this.#claimed.get(key);
      if (claimer !== undefined) found.set(userId, claimer);
      else if (!this.#unclaimed.has(key)) unknown.add(userId);
    }
    if (unknown.size === 0) return found;
    const claimers = await claimersOf(this.db, [...unknown].map((anonymousId) => ({ project_id: projectId, anonymous_id: anonymousId })));
    for (const userId of unknown) {
      const key = claimKey(projectId, userId);
      const claimer = claimers.get(key);
      if (claimer === undefined) {
        this.#unclaimed.set(key, true);
      } else {
        found.set(userId, claimer);
        this.#claimed.set(key, claimer);
      }
    }
    return found;
  }
}
