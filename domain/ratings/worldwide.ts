import type { CountryRatings } from "./events.ts";

/** What the worldwide numbers need of one storefront's ratings. */
export type CountryNumbers = Pick<CountryRatings, "country" | "average_rating" | "rating_count" | "current_version_rating" | "current_version_rating_count">;

/** An app's numbers across storefronts (SPEC, App resource: `worldwide_*`). */
export type WorldwideRatings = {
  average_rating: number | null;
  rating_count: number;
  current_version_rating: number | null;
  current_version_rating_count: number;
};

/** Averages keep two decimals: the store shows one, and more would only carry floating-point noise. */
const roundAverage = (value: number): number => Math.round(value * 100) / 100;

/**
 * The mean of the storefronts' averages weighted by their rating counts, which is the average of
 * every rating worldwide: a storefront with 10 ratings must not weigh as much as one with 10,000.
 * Storefronts without ratings (count 0 or no average) add nothing; null when none has any.
 */
function weightedAverage(parts: readonly { average: number | null; count: number }[]): number | null {
  let weight = 0;
  let sum = 0;
  for (const { average, count } of parts) {
    if (average === null || count <= 0) continue;
    weight += count;
    sum += average * count;
  }
  return weight === 0 ? null : roundAverage(sum / weight);
}

/** The worldwide numbers of one snapshot: counts summed over storefronts, averages weighted by counts. */
export function worldwideRatings(countries: readonly CountryNumbers[]): WorldwideRatings {
  return {
    average_rating: weightedAverage(countries.map((c) => ({ average: c.average_rating, count: c.rating_count }))),
    rating_count: countries.reduce((sum, c) => sum + c.rating_count, 0),
    current_version_rating: weightedAverage(countries.map((c) => ({ average: c.current_version_rating, count: c.current_version_rating_count }))),
    current_version_rating_count: countries.reduce((sum, c) => sum + c.current_version_rating_count, 0),
  };
}

/**
 * `worldwide_rating_count_delta` (SPEC): the sum, over the storefronts of the previous snapshot, of
 * (latest count minus previous count). A storefront gone from the latest snapshot counts as its
 * whole previous count lost; a storefront new in the latest counts 0, since it has no earlier
 * number to differ from. Null without a previous snapshot, or when the previous one listed the
 * app nowhere: then no storefront has prior data.
 */
export function ratingCountDelta(
  latest: readonly Pick<CountryNumbers, "country" | "rating_count">[],
  previous: readonly Pick<CountryNumbers, "country" | "rating_count">[] | null,
): number | null {
  if (previous === null || previous.length === 0) return null;
  const now = new Map(latest.map((c) => [c.country, c.rating_count]));
  let delta = 0;
  for (const before of previous) delta += (now.get(before.country) ?? 0) - before.rating_count;
  return delta;
}

/** UTC day of an instant, `YYYY-MM-DD`: the day a snapshot taken at `at` stands for. */
export const snapshotDate = (at: Date): string => at.toISOString().slice(0, 10);
