import type { CommonQueryMethods } from "slonik";
import { ClaimLookup } from "../../projections/app-users/claim-lookup.ts";
import { FunnelDayAnswers } from "../../projections/funnel-events/day-answers.ts";
import { KeyCache } from "./auth/key-cache.ts";
import type { CachedPrincipal } from "./auth/principal.ts";
import type { CachedWritingKey } from "./ingest/caller.ts";
import { OneAtATime } from "../commands/one-at-a-time.ts";
import { TokenBuckets } from "./rate-limit.ts";

/**
 * What one API instance keeps in memory between requests. It lives on the instance's deps, never
 * in a module: tests run several instances in one process, and each must keep its own.
 */
export type InstanceState = {
  /** Resolved ingest, import and team-wide keys, forgotten on revocation (auth/key-cache.ts). */
  keyCache: KeyCache<CachedWritingKey | CachedPrincipal>;
  /** Rate-limit token buckets by caller (rate-limit.ts). */
  rateLimits: TokenBuckets;
  /** Queues of writes that must not race within this instance (one-at-a-time.ts). */
  oneAtATime: OneAtATime;
  /** Claimed anonymous ids for ingest re-attribution (claim-lookup.ts). */
  claims: ClaimLookup;
  /** Funnel counts of past days, kept at the days' versions (day-answers.ts). */
  funnelDays: FunnelDayAnswers;
};

/** Empty state for a new API instance reading claims through `db`. Throws nothing. */
export function newInstanceState(db: CommonQueryMethods): InstanceState {
  return { keyCache: new KeyCache(), rateLimits: new TokenBuckets(), oneAtATime: new OneAtATime(), claims: new ClaimLookup(db), funnelDays: new FunnelDayAnswers() };
}
