import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { isAnonymousId } from "../../domain/identity/events.ts";

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

const keyOf = (projectId: string, anonymousId: string) => `${projectId}\n${anonymousId}`;

function bounded<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(key, value);
}

/** Records a claim this process just made, so its ingest requests re-attribute without waiting. */
export function rememberClaim(db: CommonQueryMethods, projectId: string, anonymousId: string, userId: string): void {
  const cache = cacheOf(db);
  cache.unclaimed.delete(keyOf(projectId, anonymousId));
  bounded(cache.claimed, keyOf(projectId, anonymousId), userId);
}

/**
 * The users that claimed any of `userIds` (only anonymous ids can be claimed) in the project, as
 * a map from anonymous id to claiming user id. One query for all ids the cache does not answer.
 */
export async function claimedUsersOf(db: CommonQueryMethods, projectId: string, userIds: Iterable<string | null>): Promise<Map<string, string>> {
  const cache = cacheOf(db);
  const now = Date.now();
  const found = new Map<string, string>();
  const unknown = new Set<string>();
  for (const userId of userIds) {
    if (userId === null || !isAnonymousId(userId) || found.has(userId)) continue;
    const key = keyOf(projectId, userId);
    const claimer = cache.claimed.get(key);
    if (claimer !== undefined) found.set(userId, claimer);
    else if ((cache.unclaimed.get(key) ?? 0) <= now) unknown.add(userId);
  }
  if (unknown.size === 0) return found;
  const rows = await db.any(sql.type(z.object({ anonymous_id: z.string(), user_id: z.string() }))`
    select anonymous_id, user_id from app_user_claims
     where project_id = ${projectId} and anonymous_id = any(${sql.array([...unknown], "text")})`);
  for (const row of rows) {
    found.set(row.anonymous_id, row.user_id);
    unknown.delete(row.anonymous_id);
    bounded(cache.claimed, keyOf(projectId, row.anonymous_id), row.user_id);
  }
  for (const userId of unknown) bounded(cache.unclaimed, keyOf(projectId, userId), now + UNCLAIMED_TTL_MS);
  return found;
}

/** The user that claimed `anonymousId` in the project, or null (SPEC Ingest rule 6). */
export async function claimedUserOf(db: CommonQueryMethods, projectId: string, anonymousId: string): Promise<string | null> {
  return (await claimedUsersOf(db, projectId, [anonymousId])).get(anonymousId) ?? null;
}

/**
 * Re-attributes events carrying an already-claimed anonymous id to the claiming user, in place.
 * The ingest route calls it on the normalized events before it encodes the fact.
 */
export async function reattributeClaimed(db: CommonQueryMethods, projectId: string, events: { user_id: string | null }[]): Promise<void> {
  const claimed = await claimedUsersOf(db, projectId, events.map((event) => event.user_id));
  if (claimed.size === 0) return;
  for (const event of events) {
    const claimer = event.user_id === null ? undefined : claimed.get(event.user_id);
    if (claimer !== undefined) event.user_id = claimer;
  }
}
