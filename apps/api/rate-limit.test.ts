import { describe, expect, it } from "vitest";
import { enforceRateLimit, TokenBuckets } from "./rate-limit.ts";

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("TokenBuckets", () => {
  it("allows a burst of 100, then one request per 100 ms of refill", () => {
    const time = clock();
    const buckets = new TokenBuckets(100, 10, time.now);
    for (let i = 0; i < 100; i += 1) expect(buckets.take("key:a")).toBe(true);
    expect(buckets.take("key:a")).toBe(false);
    time.advance(99);
    expect(buckets.take("key:a")).toBe(false);
    time.advance(1);
    expect(buckets.take("key:a")).toBe(true);
    expect(buckets.take("key:a")).toBe(false);
    time.advance(1_000);
    for (let i = 0; i < 10; i += 1) expect(buckets.take("key:a")).toBe(true);
    expect(buckets.take("key:a")).toBe(false);
  });

  it("never refills beyond capacity and keeps identities apart", () => {
    const time = clock();
    const buckets = new TokenBuckets(100, 10, time.now);
    buckets.take("user:b");
    time.advance(3_600_000);
    let allowed = 0;
    while (buckets.take("user:b")) allowed += 1;
    expect(allowed).toBe(100);
    expect(buckets.take("ip:1.2.3.4")).toBe(true);
  });

  it("forgets full buckets once it tracks many identities, without changing answers", () => {
    const time = clock();
    const buckets = new TokenBuckets(100, 10, time.now);
    for (let i = 0; i < 10_000; i += 1) buckets.take(`key:${i}`);
    for (let i = 0; i < 100; i += 1) buckets.take("key:busy");
    time.advance(1_000);
    buckets.take("key:new");
    expect(buckets.size).toBeLessThan(100);
    // The busy identity had only refilled 10 tokens: it was kept, still nearly empty.
    let allowed = 0;
    while (buckets.take("key:busy")) allowed += 1;
    expect(allowed).toBe(10);
  });
});

describe("enforceRateLimit", () => {
  it("spends the buckets of the API it is given: two instances limit apart", () => {
    const first = { rateLimits: new TokenBuckets(2, 0) };
    const second = { rateLimits: new TokenBuckets(2, 0) };
    enforceRateLimit(first, "key:a");
    enforceRateLimit(first, "key:a");
    expect(() => enforceRateLimit(first, "key:a")).toThrow(expect.objectContaining({ code: "rate_limited" }));
    expect(() => enforceRateLimit(second, "key:a")).not.toThrow();
  });
});
