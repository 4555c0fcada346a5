import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { DomainEnvelope } from "../../domain/events.ts";
import type { AppRatingsSnapshotted, CountryRatings } from "../../domain/ratings/events.ts";
import { SYSTEM_ACTOR } from "../../domain/shared/envelope.ts";
import { onSubject, readModelDatabase, type ReadModelDatabase } from "../../test/support/projection.ts";
import { ratingsProjection } from "./apply.ts";
import { ratingsOfApps } from "./queries.ts";

const APP = "00000000-0000-4000-8000-0000000000a1";
const OTHER_APP = "00000000-0000-4000-8000-0000000000a2";
const TEAM = "00000000-0000-4000-8000-00000000000a";
const PROJECT = "00000000-0000-4000-8000-0000000000b1";

let database: ReadModelDatabase;
beforeAll(async () => {
  database = await readModelDatabase();
});
afterAll(async () => database?.drop());

const country = (code: string, count: number, average: number | null): CountryRatings => ({
  country: code,
  store_id: "284882215",
  average_rating: average,
  rating_count: count,
  current_version_rating: null,
  current_version_rating_count: 0,
  version: "1.0",
});

/** A snapshot of `app` for `date` taken at `time` on that day, as the job appends it. */
function snapshot(app: string, date: string, time: string, countries: CountryRatings[], unlisted: string[] = []) {
  const fact: AppRatingsSnapshotted = {
    type: "AppRatingsSnapshotted",
    v: 1,
    app_id: app,
    team_id: TEAM,
    project_id: PROJECT,
    bundle_id: "com.example.shop",
    date,
    synced_at: `${date}T${time}:00.000Z`,
    countries,
    unlisted,
  };
  const envelope: DomainEnvelope = { id: `${app}-${date}-${time}`, at: fact.synced_at, actor: SYSTEM_ACTOR, events: [fact] };
  return onSubject(`t.d.ratings.${app}`, envelope);
}

const storedCountries = z.object({ date: z.string(), country: z.string(), rating_count: z.number() });

describe("ratings read model", () => {
  it("works out the latest day against the day before it, whatever order the days were recorded in", async () => {
    const model = await database.given(
      ratingsProjection,
      snapshot(APP, "2026-03-02", "06:00", [country("us", 130, 4.6), country("fr", 40, 3.5)], ["jp"]),
      snapshot(APP, "2026-03-01", "06:00", [country("us", 110, 4.5), country("gb", 60, 4)]),
      snapshot(APP, "2026-02-27", "06:00", [country("us", 1, 1)]),
    );
    const ratings = await model.read((tx) => ratingsOfApps(tx, [APP, OTHER_APP]));
    expect([...ratings.keys()]).toEqual([APP]);
    expect(ratings.get(APP)).toEqual({
      app_id: APP,
      worldwide_average_rating: 4.34,
      worldwide_rating_count: 170,
      worldwide_current_version_rating: null,
      worldwide_current_version_rating_count: 0,
      worldwide_rating_count_delta: -40,
      ratings_synced_at: "2026-03-02T06:00:00.000Z",
    });
  });

  it("replaces a day's snapshot whole with a later one of the same day", async () => {
    const model = await database.given(
      ratingsProjection,
      snapshot(APP, "2026-03-01", "06:00", [country("us", 100, 4.5), country("gb", 50, 4), country("de", 5, 5)]),
      snapshot(APP, "2026-03-01", "09:00", [country("us", 110, 4.5)], ["gb", "de"]),
    );
    const rows = await model.read((tx) =>
      tx.any(sql.type(storedCountries)`select snapshot_date::text as date, country, rating_count from app_rating_countries order by country`),
    );
    expect(rows).toEqual([{ date: "2026-03-01", country: "us", rating_count: 110 }]);
    const days = await model.read((tx) => tx.any(sql.type(z.object({ unlisted: z.array(z.string()) }))`select unlisted from app_rating_days`));
    expect(days).toEqual([{ unlisted: ["gb", "de"] }]);
    expect((await model.read((tx) => ratingsOfApps(tx, [APP]))).get(APP)).toMatchObject({
      worldwide_average_rating: 4.5,
      worldwide_rating_count: 110,
      worldwide_rating_count_delta: null,
      ratings_synced_at: "2026-03-01T09:00:00.000Z",
    });
  });

  it("keeps an app listed nowhere at zero counts, and its next day's delta null", async () => {
    const model = await database.given(
      ratingsProjection,
      snapshot(APP, "2026-03-01", "06:00", [], ["us", "gb"]),
      snapshot(APP, "2026-03-02", "06:00", [country("us", 3, 5)], ["gb"]),
    );
    expect((await model.read((tx) => ratingsOfApps(tx, [APP]))).get(APP)).toMatchObject({
      worldwide_average_rating: 5,
      worldwide_rating_count: 3,
      worldwide_rating_count_delta: null,
    });
  });

  it("skips every other subject", async () => {
    const teamFact: DomainEnvelope = {
      id: "team-1",
      at: "2026-03-01T06:00:00.000Z",
      actor: SYSTEM_ACTOR,
      events: [{ type: "TeamCreated", v: 1, team_id: TEAM, name: "Team", slug: "team", created_by: TEAM, for_new_user: false }],
    };
    const model = await database.given(ratingsProjection, onSubject(`t.d.team.${TEAM}`, teamFact));
    expect(await model.rows("app_ratings")).toEqual([]);
    expect((await model.read((tx) => ratingsOfApps(tx, []))).size).toBe(0);
  });
});
