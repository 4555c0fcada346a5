import { describe, expect, it } from "vitest";
import { binValue, DIGEST_LN_GAMMA, DIGEST_RELATIVE_ERROR, DIGEST_ZERO_BIN, digestPercentiles, splitDays, type DigestPart } from "./duration-digest.ts";

/** The bin the projection's SQL gives a duration (dimension-rollups.ts), for durations of 0.001 ms and more. */
const binOf = (ms: number) => Math.ceil(Math.log(ms) / DIGEST_LN_GAMMA);

describe("duration digest", () => {
  it("reads exact parts as percentile_cont does", () => {
    const parts: DigestPart[] = [1, 2, 3, 4].map((at) => ({ kind: "exact", at, count: 1 }));
    expect(digestPercentiles(parts, [0.5, 0.95, 0.99])).toEqual([2.5, 3.8499999999999996, 3.9699999999999998]);
    expect(digestPercentiles([], [0.5])).toEqual([null]);
  });

  it("reads every binned duration within the relative error, 0 as 0", () => {
    for (const ms of [0.001, 0.37, 1, 12.5, 250, 999.999, 86_400_000]) {
      expect(Math.abs(binValue(binOf(ms)) - ms)).toBeLessThanOrEqual(DIGEST_RELATIVE_ERROR * ms);
    }
    expect(binValue(DIGEST_ZERO_BIN)).toBe(0);
  });

  it("keeps percentiles of merged bins and exact edges within the bound", () => {
    const durations = Array.from({ length: 5_000 }, (_, i) => Math.exp((i % 997) / 90) * 3.7);
    const bins = new Map<number, number>();
    for (const ms of durations.slice(100)) bins.set(binOf(ms), (bins.get(binOf(ms)) ?? 0) + 1);
    const parts: DigestPart[] = [
      ...[...bins].map(([at, count]): DigestPart => ({ kind: "bin", at, count })),
      ...durations.slice(0, 100).map((at): DigestPart => ({ kind: "exact", at, count: 1 })),
    ];
    const exact = digestPercentiles(durations.map((at) => ({ kind: "exact", at, count: 1 })), [0.5, 0.95, 0.99]);
    digestPercentiles(parts, [0.5, 0.95, 0.99]).forEach((estimate, i) => {
      expect(Math.abs(estimate! - exact[i]!)).toBeLessThanOrEqual(DIGEST_RELATIVE_ERROR * exact[i]!);
    });
  });

  it("reads whole UTC days from the daily digests, the hours around them from the hourly ones", () => {
    const hour = (iso: string) => new Date(iso);
    expect(splitDays({ rollupFrom: hour("2026-01-01T05:00:00Z"), rollupTo: hour("2026-01-04T03:00:00Z") })).toEqual({
      dayFrom: hour("2026-01-02T00:00:00Z"),
      dayTo: hour("2026-01-04T00:00:00Z"),
    });
    const within = { rollupFrom: hour("2026-01-01T05:00:00Z"), rollupTo: hour("2026-01-02T03:00:00Z") };
    expect(splitDays(within)).toEqual({ dayFrom: within.rollupTo, dayTo: within.rollupTo });
  });
});
