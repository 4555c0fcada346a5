import { LRUCache } from "lru-cache";
import type { DomainEvent } from "../../../domain/events.ts";
import { revocationIn, revokes, type KeyScope, type Revocation } from "./revocations.ts";

/** How long a resolved key is reused without reading the directory again (at most). */
const FRESH_MS = 5_000;
const MAX_KEYS = 10_000;

type Entry<V> = { value: V; scope: KeyScope; expiresAt: number };

export type KeyCacheOptions = {
  max?: number;
  freshMs?: number;
  /** A wall clock for tests; it also drives the entries' freshness then. */
  clock?: () => number;
};

/**
 * Resolved API keys of one API instance (`deps.keyCache`), by Authorization header. SDKs post
 * several batches a second per key, so a hit saves a directory read; it is one synchronous lookup.
 *
 * An entry lives at most FRESH_MS and never past its key's `expires_at`. Revocations do not wait
 * for that: the command that revokes forgets the key before it answers (`forget`, called by
 * the command handler), and every instance forgets it again when it sees the fact on the log
 * (`revocation-follower.ts`). Two guards keep a forgotten key from coming back with a row read
 * before the directory changed it:
 * - a resolution takes the `generation` before it reads and stores only if no revocation came
 *   since (`set`);
 * - while a `hold` is taken (a revocation the directory has not applied yet, or the log not being
 *   followed), nothing new is stored at all.
 */
export class KeyCache<V extends object> {
  readonly #entries: LRUCache<string, Entry<V>>;
  readonly #freshMs: number;
  readonly #now: () => number;
  #generation = 0;
  #holds = 0;

  constructor(options: KeyCacheOptions = {}) {
    this.#freshMs = options.freshMs ?? FRESH_MS;
    // Looked up on each call, not captured: the wall clock is whatever `Date` is then.
    this.#now = options.clock ?? (() => Date.now());
    this.#entries = new LRUCache<string, Entry<V>>({
      max: options.max ?? MAX_KEYS,
      ttl: this.#freshMs,
      // Read the clock on every lookup: the cached reading's default 1 ms costs a timer per refresh.
      ttlResolution: 0,
      ...(options.clock ? { perf: { now: options.clock } } : {}),
    });
  }

  /** The value remembered for `authorization`, unless it is stale or its key has expired. */
  get(authorization: string): V | undefined {
    const entry = this.#entries.get(authorization);
    if (entry === undefined) return undefined;
    // The TTL bounds the entry on the monotonic clock; the key's expiry is a wall-clock instant.
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(authorization);
      return undefined;
    }
    return entry.value;
  }

  /** Take it before reading the directory and hand it to `set`: it changes with every revocation. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Remembers a key read from the directory: for FRESH_MS, cut short by `keyExpiresAt` (epoch ms,
   * null when the key does not expire). Stores nothing while a hold is taken or when a revocation
   * came after `generation` was taken, since the row read may predate it.
   */
  set(authorization: string, value: V, scope: KeyScope, keyExpiresAt: number | null, generation: number): void {
    if (this.#holds > 0 || generation !== this.#generation) return;
    const expiresAt = keyExpiresAt ?? Number.POSITIVE_INFINITY;
    const left = expiresAt - this.#now();
    if (left <= 0) return;
    this.#entries.set(authorization, { value, scope, expiresAt }, { ttl: Math.max(1, Math.min(this.#freshMs, Math.floor(left))) });
  }

  /** Forgets every key that `events` revoke (deleted, changed, or of a deleted app, project or team). Returns whether they revoke any. */
  forget(events: readonly DomainEvent[]): boolean {
    const revocation = revocationIn(events);
    if (revocation === null) return false;
    this.forgetRevoked(revocation);
    return true;
  }

  /** Forgets the keys `revocation` takes away, and voids resolutions in flight. */
  forgetRevoked(revocation: Revocation): void {
    this.#generation += 1;
    const revoked: string[] = [];
    for (const [authorization, entry] of this.#entries.entries()) if (revokes(revocation, entry.scope)) revoked.push(authorization);
    for (const authorization of revoked) this.#entries.delete(authorization);
  }

  /** Forgets every key, and voids resolutions in flight. */
  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
  }

  /** Stores nothing new until the returned release is called (once per hold; holds add up). */
  hold(): () => void {
    this.#holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds -= 1;
    };
  }

  /** Whether new keys are being remembered (no hold taken). */
  get caching(): boolean {
    return this.#holds === 0;
  }

  get size(): number {
    return this.#entries.size;
  }
}
