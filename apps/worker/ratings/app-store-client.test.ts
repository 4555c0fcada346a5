import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAppStore, type FakeAppStore } from "../../../test/support/fake-app-store.ts";
import { freePort } from "../../../test/support/processes.ts";
import type { AppStoreConfig } from "../../app-store-config.ts";
import { AppStoreError, lookupRatings, Pacer } from "./app-store-client.ts";

let store: FakeAppStore;
let config: AppStoreConfig;
let n = 0;
/** A bundle id no other test uses, so the fake's scripts and counts are this test's own. */
const bundle = () => `com.example.client${(n += 1)}`;
const numbers = { trackId: 42, version: "2.0", averageUserRating: 4.5, userRatingCount: 200, averageUserRatingForCurrentVersion: 4, userRatingCountForCurrentVersion: 20 };

async function failure(promise: Promise<unknown>): Promise<AppStoreError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppStoreError)) throw new Error(`expected an AppStoreError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  store = await startFakeAppStore();
  config = { lookupUrl: store.baseUrl, timeoutMs: 300, countries: ["us"], retries: 2, retryBaseMs: 10, requestIntervalMs: 0 };
});
afterAll(() => store.close());

describe("App Store lookups", () => {
  it("reads a listed app's numbers, and null where the storefront does not list it", async () => {
    const id = bundle();
    store.list(id, "us", numbers);
    expect(await lookupRatings(config, id, "us")).toEqual({
      store_id: "42",
      average_rating: 4.5,
      rating_count: 200,
      current_version_rating: 4,
      current_version_rating_count: 20,
      version: "2.0",
    });
    expect(await lookupRatings(config, id, "gb")).toBeNull();
    expect(store.received.at(-1)).toEqual({ bundleId: id, country: "gb" });
  });

  it("retries a 5xx and a 429, then takes the answer", async () => {
    const id = bundle();
    store.list(id, "us", numbers);
    store.script(id, "us", { status: 503 }, { status: 429, headers: { "retry-after": "0" } });
    expect(await lookupRatings(config, id, "us")).toMatchObject({ rating_count: 200 });
    expect(store.asked(id, "us")).toBe(3);
  });

  it("waits as long as Retry-After asks", async () => {
    const id = bundle();
    store.list(id, "us", numbers);
    store.script(id, "us", { status: 429, headers: { "retry-after": "1" } });
    const started = Date.now();
    await lookupRatings({ ...config, retryBaseMs: 0 }, id, "us");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it("gives up after the retries, naming the store, the app, the storefront and the status", async () => {
    const id = bundle();
    store.script(id, "de", { status: 502 }, { status: 503 }, { status: 500 });
    const error = await failure(lookupRatings(config, id, "de"));
    expect(error.message).toBe(`App Store lookup of ${id} in de answered 500 (3 attempts)`);
    expect(error.status).toBe(500);
    expect(store.asked(id, "de")).toBe(3);
  });

  it("does not retry another status", async () => {
    const id = bundle();
    store.script(id, "us", { status: 400, body: '{"errorMessage":"Invalid value(s) for key(s): [country]"}' });
    const error = await failure(lookupRatings(config, id, "us"));
    expect(error.message).toBe(`App Store lookup of ${id} in us answered 400`);
    expect(store.asked(id, "us")).toBe(1);
  });

  it("fails at once on malformed JSON and on an answer of another shape", async () => {
    const id = bundle();
    store.script(id, "us", { body: '{"resultCount":1,"results":[{"trackId":' }, { body: '{"errorMessage":"busy"}' });
    expect((await failure(lookupRatings(config, id, "us"))).message).toBe(`App Store lookup of ${id} in us answered 200 with malformed JSON`);
    expect((await failure(lookupRatings(config, id, "us"))).message).toBe(
      `App Store lookup of ${id} in us answered 200 with an unexpected shape: the answer has no results array`,
    );
    expect(store.asked(id, "us")).toBe(2);
  });

  it("retries an answer slower than the timeout, and says so when none comes in time", async () => {
    const id = bundle();
    store.list(id, "us", numbers);
    store.script(id, "us", { delayMs: 1_000, body: "{}" });
    expect(await lookupRatings(config, id, "us")).toMatchObject({ rating_count: 200 });
    store.script(id, "jp", { delayMs: 1_000 }, { delayMs: 1_000 }, { delayMs: 1_000 });
    const error = await failure(lookupRatings(config, id, "jp"));
    expect(error.message).toBe(`App Store lookup of ${id} in jp did not answer within 300 ms (3 attempts)`);
    expect(error.status).toBeNull();
  });

  it("says when the store cannot be reached", async () => {
    // A port nothing listens on (fetch refuses low ports like 1 before connecting).
    const error = await failure(lookupRatings({ ...config, lookupUrl: `http://127.0.0.1:${await freePort()}`, retries: 1 }, bundle(), "us"));
    expect(error.message).toMatch(/^App Store lookup of com\.example\.client\d+ in us could not be reached \(ECONNREFUSED\) \(2 attempts\)$/);
  });

  it("spaces requests by the pacer's interval", async () => {
    const id = bundle();
    const pacer = new Pacer(150);
    const started = Date.now();
    for (const country of ["us", "gb", "fr"]) await lookupRatings(config, id, country, { pacer });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("stops waiting when the run stops", async () => {
    const id = bundle();
    store.script(id, "us", { status: 503 });
    const stop = new AbortController();
    const lookup = lookupRatings({ ...config, retryBaseMs: 30_000 }, id, "us", { stop: stop.signal });
    setTimeout(() => stop.abort(), 100);
    await expect(lookup).rejects.toThrow(/abort/i);
  });
});
