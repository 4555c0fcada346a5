import { describe, expect, it } from "vitest";
import { alignGroups, bucketStarts } from "./time-buckets.ts";

describe("a metric chart's time buckets", () => {
  const now = Date.parse("2026-11-26T14:37:12Z");

  it("covers the range with whole UTC hours, the current one last", () => {
    const starts = bucketStarts("6h", "time:hour", now);
    expect(starts.map((start) => new Date(start).toISOString())).toEqual([
      "2026-11-26T08:00:00.000Z",
      "2026-11-26T09:00:00.000Z",
      "2026-11-26T10:00:00.000Z",
      "2026-11-26T11:00:00.000Z",
      "2026-11-26T12:00:00.000Z",
      "2026-11-26T13:00:00.000Z",
      "2026-11-26T14:00:00.000Z",
    ]);
  });

  it("covers thirty days with 31 UTC days", () => {
    const starts = bucketStarts("30d", "time:day", now);
    expect(starts).toHaveLength(31);
    expect(new Date(starts.at(-1)!).toISOString()).toBe("2026-11-26T00:00:00.000Z");
  });

  it("puts each group on its bucket and leaves the others empty", () => {
    const starts = bucketStarts("6h", "time:hour", now);
    const aligned = alignGroups(starts, [{ value: "2026-11-26T13:00:00.000Z", total_count: 4 }]);
    expect(aligned.filter((bucket) => bucket.group !== undefined)).toEqual([{ start: Date.parse("2026-11-26T13:00:00Z"), group: { value: "2026-11-26T13:00:00.000Z", total_count: 4 } }]);
    expect(aligned).toHaveLength(starts.length);
  });
});
