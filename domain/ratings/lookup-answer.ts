import type { CountryRatings } from "./events.ts";

/**
 * What one storefront's lookup answer says about an app: its numbers, that the storefront does
 * not list it, or that the answer is not the shape the store's Lookup API documents.
 */
export type LookupAnswer =
  | { kind: "listed"; ratings: Omit<CountryRatings, "country"> }
  | { kind: "unlisted" }
  | { kind: "malformed"; reason: string };

type Result = Record<string, unknown>;

const isObject = (value: unknown): value is Result => typeof value === "object" && value !== null && !Array.isArray(value);

/** A count the store may leave out (no ratings yet): missing means 0. */
function count(result: Result, field: string): number | string {
  const value = result[field];
  if (value === undefined || value === null) return 0;
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : `${field} is not a count`;
}

/** An average on the 0-5 scale; null when missing or when there is nothing to average (the store then says 0). */
function average(result: Result, field: string, ratings: number): number | null | string {
  const value = result[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 5) return `${field} is not a rating from 0 to 5`;
  return ratings === 0 ? null : value;
}

/**
 * Reads the body of `GET /lookup?bundleId=<id>&country=<cc>` (iTunes Search API, Lookup):
 * `{resultCount, results: [{trackId, bundleId, version, averageUserRating, userRatingCount,
 * averageUserRatingForCurrentVersion, userRatingCountForCurrentVersion, …}]}`. `resultCount` 0
 * means the storefront does not list the app. The result whose `bundleId` is the one asked for
 * is taken, else the first: a bundle id lookup names one app.
 */
export function readLookupAnswer(body: unknown, bundleId: string): LookupAnswer {
  if (!isObject(body) || !Array.isArray(body.results)) return { kind: "malformed", reason: "the answer has no results array" };
  if (body.resultCount === 0 || body.results.length === 0) return { kind: "unlisted" };
  const results = body.results.filter(isObject);
  const result = results.find((candidate) => candidate.bundleId === bundleId) ?? results[0];
  if (result === undefined) return { kind: "malformed", reason: "the results are not objects" };
  if (!Number.isSafeInteger(result.trackId)) return { kind: "malformed", reason: "the result has no trackId" };
  const ratingCount = count(result, "userRatingCount");
  const currentCount = count(result, "userRatingCountForCurrentVersion");
  if (typeof ratingCount === "string") return { kind: "malformed", reason: ratingCount };
  if (typeof currentCount === "string") return { kind: "malformed", reason: currentCount };
  const averageRating = average(result, "averageUserRating", ratingCount);
  const currentRating = average(result, "averageUserRatingForCurrentVersion", currentCount);
  if (typeof averageRating === "string") return { kind: "malformed", reason: averageRating };
  if (typeof currentRating === "string") return { kind: "malformed", reason: currentRating };
  return {
    kind: "listed",
    ratings: {
      store_id: String(result.trackId),
      average_rating: averageRating,
      rating_count: ratingCount,
      current_version_rating: currentRating,
      current_version_rating_count: currentCount,
      version: typeof result.version === "string" ? result.version : null,
    },
  };
}
