import { sql, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import { decodeDomainEnvelope } from "../../domain/events.ts";
import { isRatingsFact, type AppRatingsSnapshotted } from "../../domain/ratings/events.ts";
import { ratingCountDelta, worldwideRatings } from "../../domain/ratings/worldwide.ts";
import type { Projection } from "../_runtime/projection.ts";
import { subjectKindOf } from "../_runtime/subjects.ts";

/** Ratings facts travel on `<ns>.d.ratings.<app_id>`; the subject tells them apart without decoding others. */
const isRatingsSubject = (subject: string): boolean => subjectKindOf(subject) === "ratings";

const dayRow = z.object({ snapshot_date: z.string() });
const countryRow = z.object({
  snapshot_date: z.string(),
  country: z.string(),
  average_rating: z.number().nullable(),
  rating_count: z.number(),
  current_version_rating: z.number().nullable(),
  current_version_rating_count: z.number(),
});

/** The day's snapshot replaces any earlier one of the same app and day, rows and all. */
async function recordSnapshot(tx: DatabaseTransactionConnection, fact: AppRatingsSnapshotted): Promise<void> {
  await tx.query(sql.unsafe`delete from app_rating_countries where app_id = ${fact.app_id} and snapshot_date = ${fact.date}::date`);
  await tx.query(sql.unsafe`
    insert into app_rating_days (app_id, snapshot_date, synced_at, unlisted)
    values (${fact.app_id}, ${fact.date}::date, ${fact.synced_at}, ${sql.array(fact.unlisted, "text")})
    on conflict (app_id, snapshot_date) do update set synced_at = excluded.synced_at, unlisted = excluded.unlisted`);
  if (fact.countries.length > 0) {
    await tx.query(sql.unsafe`
      insert into app_rating_countries
        (app_id, snapshot_date, country, store_id, average_rating, rating_count, current_version_rating, current_version_rating_count, version)
      select ${fact.app_id}::uuid, ${fact.date}::date, r.country, r.store_id, r.average_rating, r.rating_count, r.current_version_rating,
             r.current_version_rating_count, r.version
        from jsonb_to_recordset(${sql.jsonb(fact.countries)}) as r(
          country text, store_id text, average_rating double precision, rating_count bigint,
          current_version_rating double precision, current_version_rating_count bigint, version text)`);
  }
  await refreshSummary(tx, fact.app_id);
}

/**
 * Works out the app's worldwide numbers from its latest day and the delta against the day before
 * it, whatever order the days were recorded in: the summary depends on the stored days only, so a
 * replay rebuilds it exactly.
 */
async function refreshSummary(tx: DatabaseTransactionConnection, appId: string): Promise<void> {
  const days = await tx.anyFirst(sql.type(dayRow)`
    select snapshot_date::text as snapshot_date from app_rating_days where app_id = ${appId} order by snapshot_date desc limit 2`);
  const [latest, previous] = days;
  if (latest === undefined) return;
  const rows = await tx.any(sql.type(countryRow)`
    select snapshot_date::text as snapshot_date, country, average_rating, rating_count, current_version_rating, current_version_rating_count
      from app_rating_countries where app_id = ${appId} and snapshot_date = any(${sql.array([...days], "date")})`);
  const latestCountries = rows.filter((row) => row.snapshot_date === latest);
  const worldwide = worldwideRatings(latestCountries);
  const delta = ratingCountDelta(latestCountries, previous === undefined ? null : rows.filter((row) => row.snapshot_date === previous));
  await tx.query(sql.unsafe`
    insert into app_ratings (app_id, latest_date, synced_at, worldwide_average_rating, worldwide_rating_count, worldwide_current_version_rating,
                             worldwide_current_version_rating_count, worldwide_rating_count_delta)
    select ${appId}::uuid, ${latest}::date, d.synced_at, ${worldwide.average_rating}::double precision, ${worldwide.rating_count}::bigint,
           ${worldwide.current_version_rating}::double precision, ${worldwide.current_version_rating_count}::bigint, ${delta}::bigint
      from app_rating_days d where d.app_id = ${appId} and d.snapshot_date = ${latest}::date
    on conflict (app_id) do update
      set latest_date = excluded.latest_date, synced_at = excluded.synced_at, worldwide_average_rating = excluded.worldwide_average_rating,
          worldwide_rating_count = excluded.worldwide_rating_count, worldwide_current_version_rating = excluded.worldwide_current_version_rating,
          worldwide_current_version_rating_count = excluded.worldwide_current_version_rating_count,
          worldwide_rating_count_delta = excluded.worldwide_rating_count_delta`);
}

/** The `ratings` read model, from the DOMAIN stream: apple-platform apps' daily store ratings per storefront (README.md). */
export const ratingsProjection: Projection = {
  name: "ratings",
  stream: "DOMAIN",
  migrationsDir: new URL("./migrations/", import.meta.url),
  apply: async (tx, facts) => {
    for (const fact of facts) {
      if (!isRatingsSubject(fact.subject)) continue;
      for (const event of decodeDomainEnvelope(fact.data).events) if (isRatingsFact(event)) await recordSnapshot(tx, event);
    }
  },
};
