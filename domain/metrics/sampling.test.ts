import { describe, expect, it } from "vitest";
import { estimateUsers, sampleThreshold, selectionThreshold } from "./sampling.ts";

describe("sampling", () => {
  it("reads exactly up to the limit and about `limit` events above it", () => {
    expect(sampleThreshold(100_000, 100_000)).toBeNull();
    expect(sampleThreshold(200_000, 100_000)).toBe(512);
    expect(sampleThreshold(2_000_000, 100_000)).toBe(51);
    expect(sampleThreshold(10_000_000_000, 100_000)).toBe(1);
  });

  it("scales sampled users up by the sampled share of buckets", () => {
    expect(estimateUsers(500, 512)).toBe(1_000);
    expect(estimateUsers(3, 51)).toBe(60);
  });

  it("lowers a selection's threshold so that the sampled read scans at most the scan limit", () => {
    expect(selectionThreshold(40_000, 2_000_000, 50_000, 100_000)).toBeNull();
    // Without a filter the selection is the window: the usual threshold.
    expect(selectionThreshold(2_000_000, 2_000_000, 50_000, 100_000)).toBe(25);
    // A quarter of the window would take 102 buckets, 200,000 sampled events to walk.
    expect(selectionThreshold(500_000, 2_000_000, 50_000, 100_000)).toBe(51);
  });
});
