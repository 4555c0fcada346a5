import { describe, expect, it } from "vitest";
import { orderBreakdown, stepAnalytics } from "./analytics.ts";

describe("stepAnalytics", () => {
  it("gives percentages of step 0 and drop-offs from the previous step", () => {
    expect(stepAnalytics(["a", "b", "c"], [8, 6, 2])).toEqual([
      { step_index: 0, step_name: "a", unique_users: 8, percentage: 100, drop_off_count: 0, drop_off_percentage: 0 },
      { step_index: 1, step_name: "b", unique_users: 6, percentage: 75, drop_off_count: 2, drop_off_percentage: 25 },
      { step_index: 2, step_name: "c", unique_users: 2, percentage: 25, drop_off_count: 4, drop_off_percentage: 66.67 },
    ]);
  });

  it("is all zeros when nobody entered", () => {
    expect(stepAnalytics(["a", "b"], [0, 0]).map((step) => [step.percentage, step.drop_off_percentage])).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });
});

describe("orderBreakdown", () => {
  it("puts the largest groups first, ties by value, missing values last, at most 100", () => {
    const rows = [
      { value: "b", total_users: 2 },
      { value: null, total_users: 2 },
      { value: "a", total_users: 2 },
      { value: "c", total_users: 9 },
    ];
    expect(orderBreakdown(rows).map((row) => row.value)).toEqual(["c", "a", "b", null]);
    expect(orderBreakdown(Array.from({ length: 150 }, (_, i) => ({ value: `v${i}`, total_users: i })))).toHaveLength(100);
  });
});
