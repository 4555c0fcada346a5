import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import type { DomainEnvelope } from "../../../domain/events.ts";
import type { ProgressWatcher } from "../../../projections/_runtime/progress.ts";
import type { Log } from "../../../streams/connection.ts";
import type { DomainListener } from "../../../streams/follow.ts";
import { KeyCache } from "./key-cache.ts";
import { followRevocations } from "./revocation-follower.ts";

const listeners: DomainListener[] = [];
vi.mock("../../../streams/follow.ts", () => ({
  followDomain: async (_log: unknown, _logger: unknown, listener: DomainListener) => {
    listeners.push(listener);
    return { stop: async () => undefined };
  },
}));

/** A directory whose progress the test moves by hand. */
function directory() {
  let position = 0;
  const waiters: { seq: number; resolve: (reached: boolean) => void }[] = [];
  const progress = {
    waitFor: (_: string[], seq: number) =>
      position >= seq ? Promise.resolve(true) : new Promise<boolean>((resolve) => waiters.push({ seq, resolve })),
  } as unknown as ProgressWatcher;
  const applyUpTo = async (seq: number) => {
    position = seq;
    for (const waiter of waiters.splice(0)) {
      if (waiter.seq <= seq) waiter.resolve(true);
      else waiters.push(waiter);
    }
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { progress, applyUpTo };
}

const keyScope = { keyId: "key", appId: "app", projectId: "project", teamId: "team" };
const envelope = (events: DomainEnvelope["events"]): DomainEnvelope => ({ id: "f", at: new Date().toISOString(), actor: { type: "system", id: null }, events });

async function started() {
  const cache = new KeyCache<{ name: string }>();
  const { progress, applyUpTo } = directory();
  const following = await followRevocations({ log: {} as Log, logger: pino({ level: "silent" }), progress, keyCache: cache });
  const listener = listeners.at(-1)!;
  const remember = () => cache.set("a", { name: "a" }, keyScope, null, cache.generation);
  return { cache, listener, applyUpTo, remember, following };
}

describe("followRevocations", () => {
  it("caches nothing until the domain stream is followed", async () => {
    const { cache, listener, remember } = await started();
    remember();
    expect(cache.get("a")).toBeUndefined();
    listener.following();
    remember();
    expect(cache.get("a")).toEqual({ name: "a" });
  });

  it("forgets a revoked key at once, caches nothing until the directory applied the fact, then forgets again", async () => {
    const { cache, listener, applyUpTo, remember } = await started();
    listener.following();
    remember();
    // A resolution that read the directory before the fact arrived.
    const before = cache.generation;
    listener.fact(envelope([{ type: "AppDeleted", v: 1, app_id: "app", team_id: "team", project_id: "project" }]), 7);
    expect(cache.get("a")).toBeUndefined();
    remember();
    expect(cache.get("a")).toBeUndefined();
    await applyUpTo(6);
    remember();
    expect(cache.get("a")).toBeUndefined();
    await applyUpTo(7);
    cache.set("a", { name: "a" }, keyScope, null, before);
    expect(cache.get("a")).toBeUndefined();
    remember();
    expect(cache.get("a")).toEqual({ name: "a" });
  });

  it("leaves the cache alone for facts that revoke nothing", async () => {
    const { cache, listener, remember } = await started();
    listener.following();
    remember();
    listener.fact(envelope([{ type: "TeamRenamed", v: 1, team_id: "team", name: "n", previous_name: "o" }]), 3);
    expect(cache.get("a")).toEqual({ name: "a" });
    expect(cache.caching).toBe(true);
  });

  it("stops caching while the stream is lost and starts again once it is back", async () => {
    const { cache, listener, remember } = await started();
    listener.following();
    remember();
    listener.lost("disconnected from NATS");
    expect(cache.get("a")).toBeUndefined();
    remember();
    expect(cache.get("a")).toBeUndefined();
    listener.lost("the consumer ended");
    listener.following();
    remember();
    expect(cache.get("a")).toEqual({ name: "a" });
  });

  it("forgets every key on a fact it cannot read", async () => {
    const { cache, listener, applyUpTo, remember } = await started();
    listener.following();
    remember();
    listener.unreadable(9, new Error("unknown type"));
    expect(cache.size).toBe(0);
    expect(cache.caching).toBe(false);
    await applyUpTo(9);
    expect(cache.caching).toBe(true);
  });
});
