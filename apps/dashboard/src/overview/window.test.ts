import { describe, expect, it } from "vitest";
import { windowOf } from "./window.ts";

describe("the overview's window", () => {
  it("ends with the bucket holding now, and buckets never overlap", () => {
    const now = new Date(2026, 10, 26, 14, 37, 12);
    const window = windowOf("24h", now);
    expect(window.buckets).toHaveLength(24);
    const last = window.buckets.at(-1)!;
    expect(new Date(last.start)).toEqual(new Date(2026, 10, 26, 14, 0, 0));
    expect(last.end).toBeGreaterThan(now.getTime());
    for (const [index, bucket] of window.buckets.slice(0, -1).entries()) expect(bucket.end).toBe(window.buckets[index + 1]!.start);
    expect(window.since).toBe(window.buckets[0]!.since);
  });

  it("aligns six-hour and day buckets to local boundaries", () => {
    const now = new Date(2026, 10, 26, 14, 37);
    expect(new Date(windowOf("7d", now).buckets.at(-1)!.start)).toEqual(new Date(2026, 10, 26, 12));
    expect(windowOf("7d", now).buckets).toHaveLength(28);
    expect(new Date(windowOf("30d", now).buckets.at(-1)!.start)).toEqual(new Date(2026, 10, 26));
  });
});
