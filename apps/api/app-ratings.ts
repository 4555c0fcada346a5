import type { CommonQueryMethods } from "slonik";
import { toApp, type AppRow } from "../../projections/directory/catalog-queries.ts";
import { ratingsOfApps, type AppRatingsRow } from "../../projections/ratings/queries.ts";

type RatingFields = Omit<AppRatingsRow, "app_id">;

/** An app as the API shows it: every rating field a number (or time) once synced, else null. */
export type PresentedApp = Omit<ReturnType<typeof toApp>, keyof RatingFields> & { [field in keyof RatingFields]: RatingFields[field] | null };

function withRatings(app: PresentedApp, ratings: AppRatingsRow | undefined): PresentedApp {
  if (ratings === undefined) return app;
  return {
    ...app,
    worldwide_average_rating: ratings.worldwide_average_rating,
    worldwide_rating_count: ratings.worldwide_rating_count,
    worldwide_current_version_rating: ratings.worldwide_current_version_rating,
    worldwide_current_version_rating_count: ratings.worldwide_current_version_rating_count,
    worldwide_rating_count_delta: ratings.worldwide_rating_count_delta,
    ratings_synced_at: ratings.ratings_synced_at,
  };
}

/**
 * Apps as the API shows them, with the store ratings of the apple-platform ones (SPEC, App
 * resource): one query for the whole page, not one per app. Other platforms, and apple apps
 * before their first sync, keep the rating fields null.
 */
export async function presentApps(db: CommonQueryMethods, rows: readonly AppRow[]): Promise<PresentedApp[]> {
  const ratings = await ratingsOfApps(db, rows.filter((row) => row.platform === "apple").map((row) => row.id));
  return rows.map((row) => withRatings(toApp(row), ratings.get(row.id)));
}

export async function presentApp(db: CommonQueryMethods, row: AppRow): Promise<PresentedApp> {
  const [app] = await presentApps(db, [row]);
  return app!;
}
