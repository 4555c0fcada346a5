import { describe, expect, it } from "vitest";
import type { DomainEvent } from "../../../domain/events.ts";
import { KeyCache } from "./key-cache.ts";

function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const scope = (keyId: string, more: Partial<{ appId: string; projectId: string; teamId: string }> = {}) => ({
  keyId,
  appId: more.appId ?? `app-of-${keyId}`,
  projectId: more.projectId ?? `project-of-${keyId}`,
  teamId: more.teamId ?? `team-of-${keyId}`,
});

function cacheWithClock() {
  const time = clock();
  const cache = new KeyCache<{ name: string }>({ clock: time.now });
  const remember = (authorization: string, keyScope = scope(authorization), keyExpiresAt: number | null = null) =>
    cache.set(authorization, { name: authorization }, keyScope, keyExpiresAt, cache.generation);
  return { time, cache, remember };
}

describe("KeyCache", () => {
  it("answers a remembered key for five seconds, then reads again", () => {
    const { time, cache, remember } = cacheWithClock();
    remember("a");
    expect(cache.get("a")).toEqual({ name: "a" });
    time.advance(4_999);
    expect(cache.get("a")).toEqual({ name: "a" });
    time.advance(2);
    expect(cache.get("a")).toBeUndefined();
  });

  it("never keeps a key past its expires_at", () => {
    const { time, cache, remember } = cacheWithClock();
    remember("expiring", scope("expiring"), time.now() + 1_500);
    time.advance(1_499);
    expect(cache.get("expiring")).toEqual({ name: "expiring" });
    time.advance(1);
    expect(cache.get("expiring")).toBeUndefined();
  });

  it("holds the expiry on the wall clock even when the freshness clock lags behind it", () => {
    // Production reads freshness from the monotonic clock and expiry from Date.now: a wall clock
    // stepped forward past the expiry must end the entry at once.
    let wall = 1_700_000_000_000;
    const cache = new KeyCache<{ name: string }>({ clock: () => wall });
    cache.set("a", { name: "a" }, scope("a"), wall + 60_000, cache.generation);
    wall += 60_000;
    expect(cache.get("a")).toBeUndefined();
  });

  it("does not remember a key that has already expired", () => {
    const { time, cache, remember } = cacheWithClock();
    remember("expired", scope("expired"), time.now());
    expect(cache.size).toBe(0);
  });

  it("forgets the keys a fact revokes: by key, app, project and team, and only those", () => {
    const { cache, remember } = cacheWithClock();
    remember("k1", scope("k1"));
    remember("k2", scope("k2", { appId: "app-x" }));
    remember("k3", scope("k3", { projectId: "project-x" }));
    remember("k4", scope("k4", { teamId: "team-x" }));
    remember("kept", scope("kept"));
    const facts: DomainEvent[][] = [
      [{ type: "ApiKeyDeleted", v: 1, key_id: "k1", team_id: "t" }],
      [{ type: "AppDeleted", v: 1, app_id: "app-x", team_id: "t", project_id: "p" }],
      [{ type: "ProjectDeleted", v: 1, project_id: "project-x", team_id: "t", slug: "s" }],
      [{ type: "TeamDeleted", v: 1, team_id: "team-x" }],
    ];
    for (const events of facts) expect(cache.forget(events)).toBe(true);
    for (const gone of ["k1", "k2", "k3", "k4"]) expect(cache.get(gone)).toBeUndefined();
    expect(cache.get("kept")).toEqual({ name: "kept" });
    expect(cache.forget([{ type: "TeamRenamed", v: 1, team_id: "team-of-kept", name: "n", previous_name: "o" }])).toBe(false);
    expect(cache.get("kept")).toEqual({ name: "kept" });
  });

  it("does not store a row read before a revocation that came while it was read", () => {
    const { cache } = cacheWithClock();
    const generation = cache.generation;
    cache.forget([{ type: "ApiKeyDeleted", v: 1, key_id: "other", team_id: "t" }]);
    cache.set("a", { name: "a" }, scope("a"), null, generation);
    expect(cache.get("a")).toBeUndefined();
    cache.set("a", { name: "a" }, scope("a"), null, cache.generation);
    expect(cache.get("a")).toEqual({ name: "a" });
  });

  it("stores nothing while a hold is taken, and holds add up", () => {
    const { cache, remember } = cacheWithClock();
    const first = cache.hold();
    const second = cache.hold();
    remember("a");
    first();
    first();
    remember("a");
    expect(cache.get("a")).toBeUndefined();
    expect(cache.caching).toBe(false);
    second();
    remember("a");
    expect(cache.get("a")).toEqual({ name: "a" });
  });

  it("is bounded: the least recently used key goes first", () => {
    const time = clock();
    const cache = new KeyCache<{ name: string }>({ clock: time.now, max: 2 });
    for (const name of ["a", "b"]) cache.set(name, { name }, scope(name), null, cache.generation);
    cache.get("a");
    cache.set("c", { name: "c" }, scope("c"), null, cache.generation);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toEqual({ name: "a" });
    expect(cache.get("c")).toEqual({ name: "c" });
  });
});
