import { describe, expect, it } from "vitest";
import { ratingCountDelta, snapshotDate, worldwideRatings, type CountryNumbers } from "./worldwide.ts";

const country = (code: string, count: number, average: number | null, currentCount = 0, current: number | null = null): CountryNumbers => ({
  country: code,
  rating_count: count,
  average_rating: average,
  current_version_rating_count: currentCount,
  current_version_rating: current,
});

describe("worldwide ratings", () => {
  it("sums the counts and weights each storefront's average by its count", () => {
    const worldwide = worldwideRatings([country("us", 300, 4.5, 30, 4), country("gb", 100, 3.5, 10, 2)]);
    // (4.5·300 + 3.5·100) / 400 = 4.25, not the plain mean 4.0; current (4·30 + 2·10) / 40 = 3.5.
    expect(worldwide).toEqual({ average_rating: 4.25, rating_count: 400, current_version_rating: 3.5, current_version_rating_count: 40 });
  });

  it("rounds averages to two decimals", () => {
    // (5·2 + 4·1) / 3 = 4.666…
    expect(worldwideRatings([country("us", 2, 5), country("de", 1, 4)]).average_rating).toBe(4.67);
  });

  it("leaves out storefronts without ratings from the averages", () => {
    const worldwide = worldwideRatings([country("us", 10, 4.2, 0, null), country("jp", 0, null, 0, null)]);
    expect(worldwide).toEqual({ average_rating: 4.2, rating_count: 10, current_version_rating: null, current_version_rating_count: 0 });
  });

  it("has no averages and zero counts when the app is listed nowhere", () => {
    expect(worldwideRatings([])).toEqual({ average_rating: null, rating_count: 0, current_version_rating: null, current_version_rating_count: 0 });
  });
});

describe("rating count delta", () => {
  const counts = (entries: Record<string, number>) => Object.entries(entries).map(([code, count]) => ({ country: code, rating_count: count }));

  it("is null without a previous snapshot", () => {
    expect(ratingCountDelta(counts({ us: 10 }), null)).toBeNull();
  });

  it("is null when the previous snapshot listed the app nowhere", () => {
    expect(ratingCountDelta(counts({ us: 10 }), [])).toBeNull();
  });

  it("sums latest minus previous over the storefronts of the previous snapshot", () => {
    expect(ratingCountDelta(counts({ us: 120, gb: 45 }), counts({ us: 100, gb: 50 }))).toBe(15);
  });

  it("counts a removed storefront as its whole previous count lost", () => {
    expect(ratingCountDelta(counts({ us: 120 }), counts({ us: 100, gb: 50 }))).toBe(-30);
  });

  it("counts a new storefront as 0", () => {
    expect(ratingCountDelta(counts({ us: 100, de: 999 }), counts({ us: 100 }))).toBe(0);
  });

  it("combines an added and a removed storefront", () => {
    // us +20, gb removed −50, de new 0.
    expect(ratingCountDelta(counts({ us: 120, de: 30 }), counts({ us: 100, gb: 50 }))).toBe(-30);
  });

  it("is 0 when nothing changed, and negative when the store lost ratings", () => {
    expect(ratingCountDelta(counts({ us: 7 }), counts({ us: 7 }))).toBe(0);
    expect(ratingCountDelta(counts({ us: 5 }), counts({ us: 7 }))).toBe(-2);
  });
});

describe("snapshot date", () => {
  it("is the UTC day of the instant", () => {
    expect(snapshotDate(new Date("2026-03-01T23:59:59.999Z"))).toBe("2026-03-01");
    expect(snapshotDate(new Date("2026-03-02T00:30:00+02:00"))).toBe("2026-03-01");
  });
});
