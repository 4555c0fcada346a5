import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";

/** The SPEC's rating fields of one app, as its latest daily snapshot has them. */
export const appRatingsRow = z.object({
  app_id: z.string(),
  worldwide_average_rating: z.number().nullable(),
  worldwide_rating_count: z.number(),
  worldwide_current_version_rating: z.number().nullable(),
  worldwide_current_version_rating_count: z.number(),
  worldwide_rating_count_delta: z.number().nullable(),
  ratings_synced_at: z.string(),
});
export type AppRatingsRow = z.infer<typeof appRatingsRow>;

/**
 * The ratings of a page of apps in one query (a primary-key lookup per app), keyed by app id; an
 * app without a snapshot has no entry.
 */
export async function ratingsOfApps(db: CommonQueryMethods, appIds: readonly string[]): Promise<Map<string, AppRatingsRow>> {
  if (appIds.length === 0) return new Map();
  const rows = await db.any(sql.type(appRatingsRow)`
    select app_id, worldwide_average_rating, worldwide_rating_count, worldwide_current_version_rating, worldwide_current_version_rating_count,
           worldwide_rating_count_delta, synced_at as ratings_synced_at
      from app_ratings where app_id = any(${sql.array(appIds, "uuid")})`);
  return new Map(rows.map((row) => [row.app_id, row]));
}
