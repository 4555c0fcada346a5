import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runJobCommand } from "../../apps/commands/job-command.ts";
import { runAppRatingsSync, type AppRatingsSyncDeps } from "../../apps/worker/jobs/app-ratings-sync.ts";
import { SYSTEM_ACTOR } from "../../domain/shared/envelope.ts";
import { ProgressWatcher } from "../../projections/_runtime/progress.ts";
import { createApp, createProject } from "../support/catalog.ts";
import { startFakeAppStore, type FakeAppStore } from "../support/fake-app-store.ts";
import type { Client } from "../support/http.ts";
import { waitUntil } from "../support/processes.ts";
import { runReplayCli } from "../support/replay.ts";
import { startWithOwner, stopTestService, testConfig, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * The daily App Store ratings through HTTP against real NATS and Postgres, with the worker's store
 * client asking a local fake of the Lookup API: two days of snapshots (a second run on the first
 * day replacing it, a storefront added and one removed on the second), store failures, the real
 * job handler, and `replay ratings`.
 */

const DAY1 = new Date("2026-03-01T06:00:00.000Z");
const DAY1_AGAIN = new Date("2026-03-01T08:30:00.000Z");
const DAY2 = new Date("2026-03-02T06:00:00.000Z");
const RATING_FIELDS = [
  "worldwide_average_rating",
  "worldwide_rating_count",
  "worldwide_current_version_rating",
  "worldwide_current_version_rating_count",
  "worldwide_rating_count_delta",
  "ratings_synced_at",
] as const;
const NO_RATINGS = Object.fromEntries(RATING_FIELDS.map((field) => [field, null]));

let store: FakeAppStore;
let service: TestService;
let http: Client;
let owner: SignedIn;
let progress: ProgressWatcher;
let deps: AppRatingsSyncDeps;
let projectId: string;
const apps: Record<"shop" | "flaky" | "slow" | "android" | "web" | "backend", { id: string; bundle_id: string | null }> = {} as never;

const bundleId = (label: string) => `com.example.${label}.${randomBytes(3).toString("hex")}`;

/** The deps with another storefront list, as a changed APP_STORE_COUNTRIES would give. */
const withCountries = (countries: string[]): AppRatingsSyncDeps => ({ ...deps, config: { ...deps.config, appStore: { ...deps.config.appStore, countries } } });

/** The rating fields of every app of the team, from `GET /v1/apps`. */
async function listed(): Promise<Record<string, Record<string, unknown>>> {
  const answer = await http.get(`/v1/apps?team_id=${owner.teamId}`, { token: owner.token });
  expect(answer.status).toBe(200);
  const byId: Record<string, Record<string, unknown>> = {};
  for (const app of answer.body.apps) byId[app.id] = Object.fromEntries(RATING_FIELDS.map((field) => [field, app[field]]));
  return byId;
}

async function rows(sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const db = new pg.Client({ connectionString: service.databaseUrl });
  await db.connect();
  try {
    return (await db.query(sql, params)).rows;
  } finally {
    await db.end();
  }
}

beforeAll(async () => {
  store = await startFakeAppStore();
  const config = await testConfig({
    APP_STORE_LOOKUP_URL: store.baseUrl,
    APP_STORE_COUNTRIES: "us,gb,de",
    APP_STORE_TIMEOUT_MS: "300",
    APP_STORE_RETRIES: "2",
    APP_STORE_RETRY_BASE_MS: "10",
    APP_STORE_REQUEST_INTERVAL_MS: "0",
    JOB_SCHEDULES: JSON.stringify({ app_ratings_sync: "off" }),
  });
  ({ service, http, owner } = await startWithOwner(config));
  progress = new ProgressWatcher(service.databaseUrl, service.logger);
  await progress.start();
  deps = { config: service.config, log: service.log, pool: service.pool, progress };

  projectId = (await createProject(http, owner.token, owner.teamId)).id;
  const create = async (platform: string, bundle: string | null) => {
    const app = await createApp(http, owner.token, projectId, { platform, bundle_id: bundle });
    return { id: app.id as string, bundle_id: app.bundle_id as string | null };
  };
  apps.shop = await create("apple", bundleId("shop"));
  apps.flaky = await create("apple", bundleId("flaky"));
  apps.slow = await create("apple", bundleId("slow"));
  apps.android = await create("android", bundleId("android"));
  apps.web = await create("web", bundleId("web"));
  apps.backend = await create("backend", null);
  // A deleted apple app is not an app the sync asks about.
  const gone = await create("apple", bundleId("gone"));
  expect((await http.delete(`/v1/apps/${gone.id}`, { token: owner.token })).status).toBe(200);
  store.list(gone.bundle_id!, "us", { userRatingCount: 1, averageUserRating: 1 });
});

afterAll(async () => {
  await progress?.stop();
  if (service) await stopTestService(service);
  await store?.close();
});

const shop = () => apps.shop.bundle_id!;
const flaky = () => apps.flaky.bundle_id!;
const slow = () => apps.slow.bundle_id!;

describe("app ratings", () => {
  it("are null for every app before the first sync", async () => {
    const byId = await listed();
    for (const app of Object.values(apps)) expect(byId[app.id]).toEqual(NO_RATINGS);
  });

  it("take each storefront's numbers on the first day, retrying a store error, and leave other platforms null", async () => {
    store.list(shop(), "us", { averageUserRating: 4.5, userRatingCount: 100, averageUserRatingForCurrentVersion: 4, userRatingCountForCurrentVersion: 10 });
    store.list(shop(), "gb", { averageUserRating: 4, userRatingCount: 50, averageUserRatingForCurrentVersion: 3, userRatingCountForCurrentVersion: 5 });
    store.list(shop(), "de", { averageUserRating: 5, userRatingCount: 5 });
    store.list(flaky(), "us", { averageUserRating: 3, userRatingCount: 10 });
    store.list(flaky(), "gb", { averageUserRating: 5, userRatingCount: 2 });
    store.script(flaky(), "us", { status: 503 });
    store.list(slow(), "us", { averageUserRating: 2, userRatingCount: 4 });

    const result = await runAppRatingsSync(deps, DAY1);
    expect(result).toEqual({ date: "2026-03-01", apple_apps: 3, synced: 3, failed: [] });
    expect(store.asked(flaky(), "us")).toBe(2);
    const asked = new Set(store.received.map((entry) => entry.bundleId));
    for (const other of [apps.android, apps.web]) expect(asked.has(other.bundle_id)).toBe(false);
    expect(store.received.filter((entry) => entry.bundleId?.startsWith("com.example.gone"))).toEqual([]);

    const byId = await listed();
    expect(byId[apps.shop.id]).toEqual({
      // (4.5·100 + 4·50 + 5·5) / 155 = 4.354…; current version (4·10 + 3·5) / 15 = 3.666…
      worldwide_average_rating: 4.35,
      worldwide_rating_count: 155,
      worldwide_current_version_rating: 3.67,
      worldwide_current_version_rating_count: 15,
      worldwide_rating_count_delta: null,
      ratings_synced_at: DAY1.toISOString(),
    });
    // (3·10 + 5·2) / 12 = 3.333…; no current-version ratings anywhere.
    expect(byId[apps.flaky.id]).toMatchObject({ worldwide_average_rating: 3.33, worldwide_rating_count: 12, worldwide_current_version_rating: null, worldwide_current_version_rating_count: 0 });
    expect(byId[apps.slow.id]).toMatchObject({ worldwide_average_rating: 2, worldwide_rating_count: 4, worldwide_rating_count_delta: null });
    for (const other of [apps.android, apps.web, apps.backend]) expect(byId[other.id]).toEqual(NO_RATINGS);
  });

  it("replace the day's snapshot when the sync runs again that day", async () => {
    store.list(shop(), "us", { averageUserRating: 4.5, userRatingCount: 110, averageUserRatingForCurrentVersion: 4, userRatingCountForCurrentVersion: 10 });
    store.list(shop(), "gb", { averageUserRating: 4, userRatingCount: 60, averageUserRatingForCurrentVersion: 3, userRatingCountForCurrentVersion: 5 });
    store.list(shop(), "de", null);
    expect(await runAppRatingsSync(deps, DAY1_AGAIN)).toMatchObject({ date: "2026-03-01", synced: 3 });

    // (4.5·110 + 4·60) / 170 = 4.323…; still one day, so still no delta.
    expect((await listed())[apps.shop.id]).toEqual({
      worldwide_average_rating: 4.32,
      worldwide_rating_count: 170,
      worldwide_current_version_rating: 3.67,
      worldwide_current_version_rating_count: 15,
      worldwide_rating_count_delta: null,
      ratings_synced_at: DAY1_AGAIN.toISOString(),
    });
    const days = await rows("select snapshot_date::text as date, unlisted from app_rating_days where app_id = $1", [apps.shop.id]);
    expect(days).toEqual([{ date: "2026-03-01", unlisted: ["de"] }]);
    const countries = await rows("select country, rating_count from app_rating_countries where app_id = $1 order by country", [apps.shop.id]);
    expect(countries).toEqual([
      { country: "gb", rating_count: "60" },
      { country: "us", rating_count: "110" },
    ]);
  });

  it("report the count's change on the next day, with a storefront added and one removed, and keep a failed app's last numbers", async () => {
    // gb leaves the storefront list, fr joins it (and lists the app), jp joins it without listing it.
    store.list(shop(), "us", { averageUserRating: 4.6, userRatingCount: 130, averageUserRatingForCurrentVersion: 4.8, userRatingCountForCurrentVersion: 30 });
    store.list(shop(), "fr", { averageUserRating: 3.5, userRatingCount: 40 });
    store.script(flaky(), "us", { body: '{"resultCount":1,"results":[{"trackId":' });
    store.script(slow(), "us", { delayMs: 1_000 }, { delayMs: 1_000 }, { delayMs: 1_000 });

    const result = await runAppRatingsSync(withCountries(["us", "fr", "jp"]), DAY2);
    expect(result.synced).toBe(1);
    expect(result.failed).toEqual([
      { app_id: apps.flaky.id, bundle_id: flaky(), error: `App Store lookup of ${flaky()} in us answered 200 with malformed JSON` },
      { app_id: apps.slow.id, bundle_id: slow(), error: `App Store lookup of ${slow()} in us did not answer within 300 ms (3 attempts)` },
    ]);

    const byId = await listed();
    expect(byId[apps.shop.id]).toEqual({
      // (4.6·130 + 3.5·40) / 170 = 4.341…; the current version is rated in us only.
      worldwide_average_rating: 4.34,
      worldwide_rating_count: 170,
      worldwide_current_version_rating: 4.8,
      worldwide_current_version_rating_count: 30,
      // us 130 − 110 = +20, gb gone −60, fr new 0.
      worldwide_rating_count_delta: -40,
      ratings_synced_at: DAY2.toISOString(),
    });
    expect(byId[apps.flaky.id]).toMatchObject({ worldwide_rating_count: 12, worldwide_rating_count_delta: null, ratings_synced_at: DAY1_AGAIN.toISOString() });
    expect(byId[apps.slow.id]).toMatchObject({ worldwide_rating_count: 4, ratings_synced_at: DAY1_AGAIN.toISOString() });
    for (const other of [apps.android, apps.web, apps.backend]) expect(byId[other.id]).toEqual(NO_RATINGS);
  });

  it("show the same numbers on an app and in its project", async () => {
    const list = await listed();
    const one = await http.get(`/v1/apps/${apps.shop.id}`, { token: owner.token });
    expect(Object.fromEntries(RATING_FIELDS.map((field) => [field, one.body[field]]))).toEqual(list[apps.shop.id]);
    const project = await http.get(`/v1/projects/${projectId}`, { token: owner.token });
    for (const app of project.body.apps) expect(Object.fromEntries(RATING_FIELDS.map((field) => [field, app[field]]))).toEqual(list[app.id]);
  });

  it("are synced by the scheduled job's handler", async () => {
    const runId = randomUUID();
    await runJobCommand(
      service.log,
      { projectId: null, jobType: "app_ratings_sync" },
      { type: "TriggerJob", runId, jobType: "app_ratings_sync", teamId: null, projectId: null, triggeredBy: "schedule", params: {}, notify: false },
      SYSTEM_ACTOR,
    );
    const [run] = await waitUntil("the ratings run to finish", async () => {
      const found = await rows("select status, result, error from job_runs where id = $1", [runId]);
      return found[0]?.status === "completed" || found[0]?.status === "failed" ? found : undefined;
    });
    expect(run).toMatchObject({ status: "completed", error: null, result: { apple_apps: 3, synced: 3, failed: [] } });

    // Today against the second day: the service's storefronts are us, gb, de. us 130 − 130, fr gone −40.
    const today = new Date().toISOString().slice(0, 10);
    const shopNow = (await listed())[apps.shop.id]!;
    expect(shopNow).toMatchObject({ worldwide_rating_count: 190, worldwide_rating_count_delta: -40 });
    expect(String(shopNow.ratings_synced_at).slice(0, 10)).toBe(today);
  });

  it("fail the job's run naming the store and the status when lookups fail", async () => {
    store.script(flaky(), "gb", { status: 500 }, { status: 502 }, { status: 503 });
    const runId = randomUUID();
    await runJobCommand(
      service.log,
      { projectId: null, jobType: "app_ratings_sync" },
      { type: "TriggerJob", runId, jobType: "app_ratings_sync", teamId: null, projectId: null, triggeredBy: "schedule", params: {}, notify: false },
      SYSTEM_ACTOR,
    );
    const [run] = await waitUntil("the ratings run to finish", async () => {
      const found = await rows("select status, error from job_runs where id = $1", [runId]);
      return found[0]?.status === "completed" || found[0]?.status === "failed" ? found : undefined;
    });
    expect(run).toEqual({ status: "failed", error: `app ratings sync: 1 of 3 apps failed; first: App Store lookup of ${flaky()} in gb answered 503 (3 attempts)` });
  });

  it("are rebuilt identically by the operator's `replay ratings`", async () => {
    const snapshot = async () => {
      const found: Record<string, string[]> = {};
      for (const table of ["app_rating_days", "app_rating_countries", "app_ratings"]) {
        found[table] = (await rows(`select to_jsonb(t)::text as row from public.${table} t`)).map((row) => String(row.row)).sort();
      }
      return found;
    };
    const before = await snapshot();
    expect(before.app_rating_days!.length).toBeGreaterThanOrEqual(6);
    const listedBefore = await listed();
    const cli = runReplayCli(service, "ratings");
    expect(await cli.exited, cli.output()).toEqual({ code: 0, signal: null });
    expect(cli.output()).toContain("read model ratings rebuilt as generation 2 and swapped in");
    expect(await snapshot()).toEqual(before);
    expect(await listed()).toEqual(listedBefore);
  });
});
