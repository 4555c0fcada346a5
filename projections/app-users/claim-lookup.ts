import type { CommonQueryMethods } from "slonik";
import { isAnonymousId } from "../../domain/identity/events.ts";
import { claimersOf, claimKey } from "./records.ts";

/**
 * A claim never changes once made, so a found claimer is kept (bounded); "not claimed" can change
 * at any moment, so it is kept only briefly. A claim made through this process is remembered at
 * once; one made through another API instance is seen here within UNCLAIMED_TTL_MS, and activity
 * slipping through that window is still moved by the read models (see docs/architecture.md).
 */
const UNCLAIMED_TTL_MS = 1_000;
const MAX_ENTRIES = 50_000;

type Cache = { claimed: Map<string, string>; unclaimed: Map<string, number> };
const caches = new WeakMap<object, Cache>();

function cacheOf(db: CommonQueryMethods): Cache {
  let cache = caches.get(db);
  if (!cache) {
    cache = { claimed: new Map(), unclaimed: new Map() };
    caches.set(db, cache);
  }
  return cache;
}

function bounded<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(key, value);
}

/** Records a claim this process just made, so its ingest requests re-attribute without waiting. */
export function rememberClaim(db: CommonQueryMethods, projectId: string, anonymousId: string, userId: string): void {
  const cache = cacheOf(db);
  cache.unclaimed.delete(claimKey(projectId, anonymousId));
  bounded(cache.claimed, claimKey(projectId, anonymousId), userId);
}

/**
 * The users that claimed any of `userIds` (only anonymous ids can be claimed) in the project, as
 * a map from anonymous id to claiming user id. One query for all ids the cache does not answer.
 */
async function claimedUsersOf(db: CommonQueryMethods, projectId: string, userIds: Iterable<string | null>): Promise<Map<string, string>> {
  const cache = cacheOf(db);
  const now = Date.now();
  const found = new Map<string, string>();
  const unknown = new Set<string>();
  for (const userId of userIds) {
    if (userId === null || !isAnonymousId(userId) || found.has(userId)) continue;
    const key = claimKey(projectId, userId);
    const claimer = cache.claimed.get(key);
    if (claimer !== undefined) found.set(userId, claimer);
    else if ((cache.unclaimed.get(key) ?? 0) <= now) unknown.add(userId);
  }
  if (unknown.size === 0) return found;
  const claimers = await claimersOf(db, [...unknown].map((anonymousId) => ({ project_id: projectId, anonymous_id: anonymousId })));
  for (const userId of unknown) {
    const key = claimKey(projectId, userId);
    const claimer = claimers.get(key);
    if (claimer === undefined) {
      bounded(cache.unclaimed, key, now + UNCLAIMED_TTL_MS);
    } else {
      found.set(userId, claimer);
      bounded(cache.claimed, key, claimer);
    }
  }
  return found;
}

/** The user that claimed `anonymousId` in the project, or null (SPEC Ingest rule 6). */
export async function claimedUserOf(db: CommonQueryMethods, projectId: string, anonymousId: string): Promise<string | null> {
  return (await claimedUsersOf(db, projectId, [anonymousId])).get(anonymousId) ?? null;
}

/**
 * Re-attributes events carrying an already-claimed anonymous id to the claiming user, in place.
 * The ingest route calls it on the normalized events before it encodes the fact: a batch without
 * anonymous ids (most) costs one scan, with no allocation, cache lookup or query.
 */
export async function reattributeClaimed(db: CommonQueryMethods, projectId: string, events: { user_id: string | null }[]): Promise<void> {
  let anonymous: Set<string> | undefined;
  for (const event of events) {
    if (event.user_id !== null && isAnonymousId(event.user_id)) (anonymous ??= new Set()).add(event.user_id);
  }
  if (anonymous === undefined) return;
  const claimed = await claimedUsersOf(db, projectId, anonymous);
  if (claimed.size === 0) return;
  for (const event of events) {
    const claimer = event.user_id === null ? undefined : claimed.get(event.user_id);
    if (claimer !== undefined) event.user_id = claimer;
  }
}
