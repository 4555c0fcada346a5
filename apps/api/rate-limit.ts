import type { FastifyRequest } from "fastify";
import { DomainError, rateLimited } from "../../domain/shared/errors.ts";
import type { Principal } from "./auth/principal.ts";
import type { ApiDeps } from "./deps.ts";

const CAPACITY = 100;
const REFILL_PER_SECOND = 10;
/** Above this many tracked identities, full (idle) buckets are forgotten. */
const SWEEP_ABOVE = 10_000;

type Bucket = { tokens: number; at: number };

/**
 * Token buckets per identity: 100 tokens, refilled continuously at 10 a second, one per request.
 * Held in this process's memory: each API instance limits on its own, so N instances behind a
 * load balancer allow up to N times the rate (see docs/decisions.md). Each API owns one set
 * (`deps.rateLimits`). A bucket that has refilled to capacity carries no information, so sweeping
 * those bounds memory without changing answers. Why not a rate-limit plugin: docs/decisions.md.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    private readonly capacity = CAPACITY,
    private readonly refillPerSecond = REFILL_PER_SECOND,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token for `identity`; false when its bucket is empty. */
  take(identity: string): boolean {
    const now = this.now();
    let bucket = this.#buckets.get(identity);
    if (!bucket) {
      if (this.#buckets.size >= SWEEP_ABOVE) this.#sweep(now);
      bucket = { tokens: this.capacity, at: now };
      this.#buckets.set(identity, bucket);
    } else {
      bucket.tokens = this.#level(bucket, now);
      bucket.at = now;
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  get size(): number {
    return this.#buckets.size;
  }

  #level(bucket: Bucket, now: number): number {
    return Math.min(this.capacity, bucket.tokens + (Math.max(0, now - bucket.at) * this.refillPerSecond) / 1000);
  }

  #sweep(now: number): void {
    for (const [identity, bucket] of this.#buckets) if (this.#level(bucket, now) >= this.capacity) this.#buckets.delete(identity);
  }
}

/** Who a request is counted against: its API key, else its user, else its address. */
export function rateLimitIdentity(principal: Principal | null, request: FastifyRequest): string {
  if (principal?.kind === "key") return `key:${principal.keyId}`;
  if (principal?.kind === "user") return `user:${principal.userId}`;
  return `ip:${request.ip}`;
}

/**
 * Spends one token of the caller's bucket (ingest, events query, attachment reservation).
 * @throws DomainError rate_limited, answered with `Retry-After: 1`
 */
export function enforceRateLimit(deps: Pick<ApiDeps, "rateLimits">, identity: string): void {
  if (!deps.rateLimits.take(identity)) throw rateLimited("rate limit exceeded; retry after 1 second");
}

/**
 * Resolves a rate-limited route's caller with `authenticate` and spends a token of its bucket.
 * A request without a valid credential spends its address's token before it is refused, so a
 * flood of missing or wrong keys meets 429 like any other caller.
 * @throws DomainError rate_limited, or whatever `authenticate` throws
 */
export async function authenticateRateLimited<T>(deps: Pick<ApiDeps, "rateLimits">, request: FastifyRequest, authenticate: () => Promise<T>, identityOf: (caller: T) => string): Promise<T> {
  let caller: T;
  try {
    caller = await authenticate();
  } catch (error) {
    if (error instanceof DomainError && error.code === "unauthorized") enforceRateLimit(deps, rateLimitIdentity(null, request));
    throw error;
  }
  enforceRateLimit(deps, identityOf(caller));
  return caller;
}
