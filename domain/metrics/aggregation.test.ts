import { describe, expect, it } from "vitest";
import { buildAggregation, successRate, type PhaseCount } from "./aggregation.ts";

const exact = { unique_users: 3, p50: 12.345, p95: null, p99: 99.999, sample_rate: 1 };
const row = (value: string | null, phase: PhaseCount["phase"], events: number, durations = 0, duration_sum = 0): PhaseCount => ({ value, phase, events, durations, duration_sum });

describe("successRate", () => {
  it("is complete over complete plus fail, two decimals, null without either", () => {
    expect(successRate(2, 1)).toBe(66.67);
    expect(successRate(1, 2)).toBe(33.33);
    expect(successRate(1, 7)).toBe(12.5);
    expect(successRate(0, 3)).toBe(0);
    expect(successRate(0, 0)).toBeNull();
  });
});

describe("buildAggregation", () => {
  it("adds phase counts up and averages durations over the events that carry one", () => {
    const result = buildAggregation([row(null, "start", 4), row(null, "complete", 3, 3, 300), row(null, "fail", 1, 1, 101), row(null, "record", 2)], [{ error: "x", count: 1 }], exact);
    expect(result).toEqual({
      total_count: 10,
      start_count: 4,
      complete_count: 3,
      fail_count: 1,
      cancel_count: 0,
      record_count: 2,
      success_rate: 75,
      duration_avg_ms: 100.25,
      duration_p50_ms: 12.35,
      duration_p95_ms: null,
      duration_p99_ms: 100,
      unique_users: 3,
      error_breakdown: [{ error: "x", count: 1 }],
      sample_rate: 1,
    });
  });

  it("orders time groups ascending and keeps the latest 100", () => {
    const hours = Array.from({ length: 120 }, (_, i) => row(new Date(Date.UTC(2026, 0, 1, i)).toISOString(), "record", 1));
    const groups = buildAggregation(hours.reverse(), [], exact, "time:hour").groups!;
    expect(groups).toHaveLength(100);
    expect(groups[0]!.value).toBe(new Date(Date.UTC(2026, 0, 1, 20)).toISOString());
    expect(groups.at(-1)!.value).toBe(new Date(Date.UTC(2026, 0, 1, 119)).toISOString());
  });

  it("orders other groups by size, then value, missing values last", () => {
    const groups = buildAggregation([row("b", "complete", 2, 2, 50), row(null, "fail", 2), row("a", "fail", 2), row("c", "complete", 5)], [], exact, "app_version").groups!;
    expect(groups.map((group) => [group.value, group.total_count, group.success_rate, group.duration_avg_ms])).toEqual([
      ["c", 5, 100, null],
      ["a", 2, 0, null],
      ["b", 2, 100, 25],
      [null, 2, 0, null],
    ]);
  });

  it("cuts errors to the top 20", () => {
    const errors = Array.from({ length: 25 }, (_, i) => ({ error: `e${i}`, count: 25 - i }));
    expect(buildAggregation([], errors, exact).error_breakdown).toHaveLength(20);
  });
});
