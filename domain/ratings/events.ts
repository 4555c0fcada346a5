import { z } from "zod";

/** One storefront's numbers as the store reported them on the day of the snapshot. */
export const countryRatings = z.object({
  /** ISO 3166-1 alpha-2, lower case (`us`). */
  country: z.string(),
  /** The store's id of the app (`trackId`), as text: the same app has the same id in every storefront. */
  store_id: z.string(),
  /** `averageUserRating`: all versions; null when the storefront has no ratings. */
  average_rating: z.number().nullable(),
  /** `userRatingCount`: all versions. */
  rating_count: z.number().int().nonnegative(),
  /** `averageUserRatingForCurrentVersion`; null when the current version has no ratings. */
  current_version_rating: z.number().nullable(),
  /** `userRatingCountForCurrentVersion`. */
  current_version_rating_count: z.number().int().nonnegative(),
  /** `version`: the version on sale in that storefront. */
  version: z.string().nullable(),
});
export type CountryRatings = z.infer<typeof countryRatings>;

/**
 * The daily ratings of one apple-platform app, on `<ns>.d.ratings.<app_id>`: what the store said
 * in every storefront asked, recorded by the `app_ratings_sync` job. It is an observation, not a
 * decision, so it is appended without one (like a notification's delivery outcome). A later
 * snapshot of the same app and `date` replaces the earlier one whole: the read model keeps one
 * snapshot per app and UTC day, the last recorded.
 */
export const appRatingsSnapshotted = z.object({
  type: z.literal("AppRatingsSnapshotted"),
  v: z.literal(1),
  app_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  bundle_id: z.string(),
  /** The UTC day the snapshot stands for, `YYYY-MM-DD`. */
  date: z.string(),
  /** When the store was asked (the run's time); the apps' `ratings_synced_at`. */
  synced_at: z.string(),
  /** The storefronts that list the app, each with its numbers. */
  countries: z.array(countryRatings),
  /** The storefronts asked that do not list the app (`resultCount: 0`). */
  unlisted: z.array(z.string()),
});
export type AppRatingsSnapshotted = z.infer<typeof appRatingsSnapshotted>;

export const ratingsEvents = [appRatingsSnapshotted] as const;
export type RatingsFact = z.infer<(typeof ratingsEvents)[number]>;

const RATINGS_FACT_TYPES: ReadonlySet<string> = new Set(ratingsEvents.map((event) => event.shape.type.value));

/** Whether a DOMAIN fact belongs to the ratings read model. */
export const isRatingsFact = <E extends { type: string }>(event: E): event is Extract<E, RatingsFact> => RATINGS_FACT_TYPES.has(event.type);
