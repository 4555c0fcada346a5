import { randomBytes, randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { at, getWhen, ingestAll, metricEvent, midnightDaysAgo } from "../support/analytics.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, eventsWhen } from "../support/events.ts";
import { anError, type Client } from "../support/http.ts";
import { waitUntil } from "../support/processes.ts";
import { runReplayCli } from "../support/replay.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { streamHead } from "../support/streams.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * POST /v1/import through HTTP against real NATS and Postgres: import keys, request and per-event
 * validation, update-in-place by client_event_id (any age, across months), historical partitions,
 * derived metric rows, the absence of a rate limit, body limits and replay.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
type Target = { project: any; app: any; clientKey: string; importKey: string };
let apple: Target;
let backend: Target;

const DAY = 86_400_000;
const MIB = 1024 * 1024;

async function withImportKey(target: Omit<Target, "importKey">): Promise<Target> {
  const key = await http.post("/v1/auth/keys", { name: "importer", key_type: "import", app_id: target.app.id }, { token: owner.token });
  expect(key.status).toBe(201);
  expect(key.body.api_key.secret).toMatch(/^svc_import_/);
  return { ...target, importKey: key.body.api_key.secret };
}

/** Imports here reach back to 2019: a retention of 100 years keeps them (projectors skip events past retention). */
const KEEP_ALL = { retention_days_events: 36_500, retention_days_metrics: 36_500, retention_days_funnels: 36_500 };

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  apple = await withImportKey(await projectWithApp(http, owner.token, owner.teamId, { platform: "apple" }, KEEP_ALL));
  backend = await withImportKey(await projectWithApp(http, owner.token, owner.teamId, { platform: "backend", bundle_id: null }, KEEP_ALL));
});
afterAll(async () => stopTestService(service));

const postImport = (target: Target, body: unknown) => http.post("/v1/import", body, { token: target.importKey });

/** Waits until the events read model has applied everything on INGEST. */
async function projected(): Promise<void> {
  const head = await streamHead(service.log, "INGEST");
  await waitUntil("the events read model to reach the head of INGEST", async () =>
    (await service.pool.oneFirst(sql.type(z.object({ last_seq: z.number() }))`
      select c.last_seq from projection_checkpoints c
        join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
       where c.projection = 'events'`)) >= head,
  );
}

const sessionEvents = async (target: Target, sessionId: string) => {
  await projected();
  const answer = await http.get(`/v1/events?app_id=${target.app.id}&session_id=${sessionId}&data_mode=all&limit=200&since=2000-01-01T00:00:00Z`, { token: owner.token });
  expect(answer.status).toBe(200);
  return answer.body.events as any[];
};

const eventById = async (id: string) => http.get(`/v1/events/${id}`, { token: owner.token });

describe("authentication", () => {
  it("answers 401 without a key or with an unknown key", async () => {
    const body = { events: [anEvent()] };
    expect(await http.post("/v1/import", body)).toMatchObject({ status: 401, body: anError });
    expect(await http.post("/v1/import", body, { token: `svc_import_${randomBytes(16).toString("hex")}` })).toMatchObject({ status: 401, body: anError });
  });

  it("answers 403 to client keys, agent keys, user sessions and import keys without events:write", async () => {
    const body = { events: [anEvent()] };
    expect(await http.post("/v1/import", body, { token: apple.clientKey })).toMatchObject({ status: 403, body: anError });
    const agent = await http.post("/v1/auth/default-agent-key", { team_id: owner.teamId }, { token: owner.token });
    expect(await http.post("/v1/import", body, { token: agent.body.secret })).toMatchObject({ status: 403, body: anError });
    expect(await http.post("/v1/import", body, { token: owner.token })).toMatchObject({ status: 403, body: anError });
    const limited = await http.post("/v1/auth/keys", { name: "users only", key_type: "import", app_id: apple.app.id, permissions: ["users:write"] }, { token: owner.token });
    expect(limited.status).toBe(201);
    expect(await http.post("/v1/import", body, { token: limited.body.api_key.secret })).toMatchObject({ status: 403, body: anError });
    // An import key does not ingest.
    expect(await http.post("/v1/ingest", { bundle_id: apple.app.bundle_id, ...body }, { token: apple.importKey })).toMatchObject({ status: 403, body: anError });
  });
});

describe("request validation", () => {
  it("needs no bundle_id and ignores one that does not match", async () => {
    expect((await postImport(apple, { events: [anEvent()] })).body).toEqual({ accepted: 1, updated: 0, rejected: 0 });
    expect((await postImport(apple, { bundle_id: "com.other", events: [anEvent()] })).body).toEqual({ accepted: 1, updated: 0, rejected: 0 });
  });

  it("answers 400 for a malformed body, a missing or non-array events list and more than 1000 events", async () => {
    expect(await postImport(apple, [anEvent()])).toMatchObject({ status: 400, body: anError });
    expect(await postImport(apple, {})).toMatchObject({ status: 400, body: anError });
    expect(await postImport(apple, { events: "all" })).toMatchObject({ status: 400, body: anError });
    expect(await postImport(apple, { events: Array.from({ length: 1001 }, () => anEvent()) })).toMatchObject({ status: 400, body: anError });
    const malformed = await http.call("POST", "/v1/import", { rawBody: "{nope", token: apple.importKey, headers: { "content-type": "application/json" } });
    expect(malformed).toMatchObject({ status: 400, body: anError });
    expect((await postImport(apple, { events: [] })).body).toEqual({ accepted: 0, updated: 0, rejected: 0 });
  });

  it("accepts exactly 1000 events and stores them all", async () => {
    const sessionId = randomUUID();
    const events = Array.from({ length: 1000 }, (_, i) => anEvent({ session_id: sessionId, message: `m${i}`, client_event_id: i % 2 ? null : randomUUID() }));
    expect((await postImport(apple, { events })).body).toEqual({ accepted: 1000, updated: 0, rejected: 0 });
    await projected();
    const count = await http.get(`/v1/events/count?app_id=${apple.app.id}&session_id=${sessionId}&data_mode=all`, { token: owner.token });
    expect(count.body.count).toBe(1000);
  });

  it("rejects events per event: future timestamps, invalid fields and strings Postgres cannot store", async () => {
    const sessionId = randomUUID();
    const answer = await postImport(apple, {
      events: [
        anEvent({ session_id: sessionId, timestamp: new Date(Date.now() + 10 * 60_000).toISOString() }),
        anEvent({ session_id: sessionId, level: "fatal" }),
        anEvent({ session_id: sessionId, message: "nul \u0000 inside" }),
        anEvent({ session_id: sessionId, custom_attributes: { k: "lone \ud800" } }),
        anEvent({ session_id: sessionId, timestamp: "2019-03-04T05:06:07.089Z", message: "years ago" }),
        anEvent({ session_id: sessionId, timestamp: new Date(Date.now() + 4 * 60_000).toISOString(), message: "soon" }),
      ],
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      accepted: 2,
      updated: 0,
      rejected: 4,
      errors: [
        { index: 0, message: "events[0]: timestamp is more than 5 minutes in the future" },
        { index: 1, message: expect.stringMatching(/^events\[1\]: level/) },
        { index: 2, message: "events[2]: message must not contain NUL characters or unpaired UTF-16 surrogates" },
        { index: 3, message: "events[3]: custom_attributes.k must not contain NUL characters or unpaired UTF-16 surrogates" },
      ],
    });
    expect((await sessionEvents(apple, sessionId)).map((event) => event.message).sort()).toEqual(["soon", "years ago"]);
  });
});

describe("update in place", () => {
  it("inserts a new client_event_id, then updates it in place under the same id, across months", async () => {
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    const first = anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "first", timestamp: "2025-01-15T10:00:00.000Z", user_id: "u1" });
    expect((await postImport(apple, { events: [first] })).body).toEqual({ accepted: 1, updated: 0, rejected: 0 });
    const [stored] = await sessionEvents(apple, sessionId);
    expect(stored).toMatchObject({ message: "first", timestamp: "2025-01-15T10:00:00.000Z", country_code: null });

    const second = { ...first, message: "second", level: "warn", user_id: "u2", custom_attributes: { fixed: "yes" }, timestamp: "2025-03-02T08:00:00.000Z" };
    expect((await postImport(apple, { events: [second] })).body).toEqual({ accepted: 0, updated: 1, rejected: 0 });
    const after = await sessionEvents(apple, sessionId);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: stored.id, message: "second", level: "warn", user_id: "u2", custom_attributes: { fixed: "yes" }, timestamp: "2025-03-02T08:00:00.000Z" });
    const byId = await eventById(stored.id);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ id: stored.id, project_id: apple.project.id, message: "second", timestamp: "2025-03-02T08:00:00.000Z", attachments: [] });

    // Back to the month its id names: still found.
    expect((await postImport(apple, { events: [{ ...first, message: "third" }] })).body).toEqual({ accepted: 0, updated: 1, rejected: 0 });
    await projected();
    expect((await eventById(stored.id)).body).toMatchObject({ id: stored.id, message: "third", timestamp: "2025-01-15T10:00:00.000Z" });
  });

  it("updates an event ingested earlier, keeping its id and country", async () => {
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    const ingested = await http.post("/v1/ingest", { bundle_id: apple.app.bundle_id, events: [anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "live" })] }, {
      token: apple.clientKey,
      headers: { "cf-ipcountry": "DE" },
    });
    expect(ingested.body).toEqual({ accepted: 1, rejected: 0 });
    const [stored] = await sessionEvents(apple, sessionId);
    const imported = await postImport(apple, { events: [anEvent({ session_id: sessionId, client_event_id: clientEventId.toUpperCase(), message: "corrected" })] });
    expect(imported.body).toEqual({ accepted: 0, updated: 1, rejected: 0 });
    const after = await sessionEvents(apple, sessionId);
    expect(after).toEqual([expect.objectContaining({ id: stored.id, message: "corrected", country_code: "DE" })]);
    // The imported pair is remembered for ingest dedup: a resend by the SDK is skipped.
    await http.post("/v1/ingest", { bundle_id: apple.app.bundle_id, events: [anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "resent" })] }, { token: apple.clientKey });
    expect((await sessionEvents(apple, sessionId)).map((event) => event.message)).toEqual(["corrected"]);
  });

  it("remembers an imported event of any age for ingest dedup: a resend within 48 hours is skipped", async () => {
    // The ingest dedup finds kept events in `events` within the months a recent receipt can reach;
    // an imported timestamp years back is beyond that reach, so its pair is kept in event_dedup.
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    const old = anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "imported", timestamp: "2023-02-03T04:05:06.007Z" });
    expect((await postImport(apple, { events: [old] })).body).toEqual({ accepted: 1, updated: 0, rejected: 0 });
    const resend = { bundle_id: apple.app.bundle_id, events: [anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "resent" }), anEvent({ session_id: sessionId, message: "marker" })] };
    expect((await http.post("/v1/ingest", resend, { token: apple.clientKey })).body).toEqual({ accepted: 2, rejected: 0 });
    await projected();
    expect((await sessionEvents(apple, sessionId)).map((event) => event.message).sort()).toEqual(["imported", "marker"]);
    const remembered = await service.pool.anyFirst(sql.type(z.object({ id: z.string() }))`
      select event_id::text as id from event_dedup where app_id = ${apple.app.id} and client_event_id = ${clientEventId}`);
    expect(remembered).toHaveLength(1);
  });

  it("counts a repeat inside the batch as an update and stores one row with the last values", async () => {
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    const events = ["a", "b", "c"].map((message) => anEvent({ session_id: sessionId, client_event_id: clientEventId, message }));
    expect((await postImport(apple, { events })).body).toEqual({ accepted: 1, updated: 2, rejected: 0 });
    expect((await sessionEvents(apple, sessionId)).map((event) => event.message)).toEqual(["c"]);
  });

  it("always inserts events without a client_event_id", async () => {
    const sessionId = randomUUID();
    const event = anEvent({ session_id: sessionId, client_event_id: null, timestamp: "2024-06-01T00:00:00.000Z" });
    expect((await postImport(backend, { events: [{ ...event, environment: "backend" }, { ...event, environment: undefined }] })).body).toEqual({ accepted: 2, updated: 0, rejected: 0 });
    expect((await postImport(backend, { events: [{ ...event, environment: "backend" }] })).body).toEqual({ accepted: 1, updated: 0, rejected: 0 });
    expect(await sessionEvents(backend, sessionId)).toHaveLength(3);
  });

  it("stores an event two years old in its own monthly partition", async () => {
    const sessionId = randomUUID();
    const timestamp = new Date(Date.now() - 2 * 365 * DAY).toISOString();
    expect((await postImport(apple, { events: [anEvent({ session_id: sessionId, timestamp })] })).body).toEqual({ accepted: 1, updated: 0, rejected: 0 });
    const [stored] = await sessionEvents(apple, sessionId);
    expect(stored.timestamp).toBe(timestamp);
    expect((await eventById(stored.id)).body).toMatchObject({ id: stored.id, timestamp });
    const partitions = await service.pool.anyFirst(sql.type(z.object({ name: z.string() }))`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        join pg_class p on p.oid = i.inhparent join pg_namespace n on n.oid = p.relnamespace
        join projection_generations g on g.projection = 'events' and n.nspname = 'rm_events_g' || g.active_generation
       where p.relname = 'events'`);
    expect(partitions).toContain(`events_p${timestamp.slice(0, 7).replace("-", "")}`);
  });
});

describe("derived rows", () => {
  it("refreshes a metric event when an import updates its event", async () => {
    const D = midnightDaysAgo(2);
    const base = `/v1/projects/${apple.project.id}`;
    expect((await http.post(`${base}/metrics`, { name: "restock", slug: "restock" }, { token: owner.token })).status).toBe(201);
    const original = metricEvent("restock", "complete", at(D, 3), { user_id: "u1" }, { duration_ms: "100" });
    await ingestAll(http, apple, [original]);
    const params = `since=${new Date(D).toISOString()}&until=${new Date(D + DAY).toISOString()}&data_mode=all`;
    const before = await getWhen(http, owner.token, `${base}/metrics/restock/events?${params}`, (body) => body.events.length === 1);
    const imported = await postImport(apple, { events: [{ ...original, message: "metric:restock:fail", custom_attributes: { error: "late" } }] });
    expect(imported.body).toEqual({ accepted: 0, updated: 1, rejected: 0 });
    // The counts and the error breakdown are read by parallel queries, each seeing the projector's
    // commits as of its own start: wait until both show the update.
    const after = await getWhen(
      http,
      owner.token,
      `${base}/metrics/restock/query?${params}`,
      (body) => body.aggregation.fail_count === 1 && body.aggregation.error_breakdown.length === 1,
    );
    expect(after.aggregation).toMatchObject({ total_count: 1, complete_count: 0, fail_count: 1, error_breakdown: [{ error: "late", count: 1 }] });
    const events = (await http.get(`${base}/metrics/restock/events?${params}`, { token: owner.token })).body.events;
    expect(events).toEqual([expect.objectContaining({ id: before.events[0].id, phase: "fail", error: "late" })]);
  });
});

describe("limits", () => {
  it("is not rate limited: 150 quick requests with one key all answer 200", async () => {
    const answers = await Promise.all(Array.from({ length: 150 }, () => postImport(backend, { events: [anEvent({ client_event_id: null, environment: "backend" })] })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(150).fill(200));
  });

  it("takes bodies up to 10 MiB, gzip included, and answers 413 beyond", async () => {
    const big = (padding: number) => JSON.stringify({ events: [anEvent({ client_event_id: null, custom_attributes: { a: "x" } })], padding: "p".repeat(padding) });
    const post = (raw: string | Uint8Array, headers: Record<string, string> = {}) =>
      http.call("POST", "/v1/import", { rawBody: raw, token: apple.importKey, headers: { "content-type": "application/json", ...headers } });
    expect((await post(big(3 * MIB))).body).toEqual({ accepted: 1, updated: 0, rejected: 0 });
    expect(await post(big(11 * MIB))).toMatchObject({ status: 413, body: anError });
    expect((await post(gzipSync(big(9 * MIB)), { "content-encoding": "gzip" })).body).toEqual({ accepted: 1, updated: 0, rejected: 0 });
    expect(await post(gzipSync(big(11 * MIB)), { "content-encoding": "gzip" })).toMatchObject({ status: 413, body: anError });
    expect(await post(randomBytes(64), { "content-encoding": "gzip" })).toMatchObject({ status: 400, body: anError });
  });
});

describe("replay", () => {
  async function snapshot(): Promise<{ events: string[]; dedup: string[]; retimed: string[] }> {
    const rows = async (view: string) =>
      (await service.pool.anyFirst(sql.type(z.object({ row: z.string() }))`select to_jsonb(t)::text as row from ${sql.identifier([view])} t`)).slice().sort();
    return { events: await rows("events"), dedup: await rows("event_dedup"), retimed: await rows("event_retimed") };
  }

  it("rebuilds identical rows after imports through the operator CLI", async () => {
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    await postImport(apple, { events: [anEvent({ session_id: sessionId, client_event_id: clientEventId, timestamp: "2023-05-05T05:05:05.005Z" })] });
    await postImport(apple, { events: [anEvent({ session_id: sessionId, client_event_id: clientEventId, timestamp: "2023-09-09T09:09:09.009Z", message: "moved" })] });
    await projected();
    const before = await snapshot();
    expect(before.retimed.length).toBeGreaterThan(0);
    // Every import fact of this file was applied, none set aside.
    const parked = await service.pool.anyFirst(sql.type(z.object({ error: z.string() }))`select error from parked_facts`);
    expect(parked).toEqual([]);
    const cli = runReplayCli(service, "events");
    expect(await cli.exited, cli.output()).toEqual({ code: 0, signal: null });
    expect(await snapshot()).toEqual(before);
    const events = await eventsWhen(http, owner.token, `app_id=${apple.app.id}&session_id=${sessionId}&data_mode=all&since=2000-01-01T00:00:00Z`, (found) => found.length === 1);
    expect((await eventById(events[0].id)).body).toMatchObject({ message: "moved", timestamp: "2023-09-09T09:09:09.009Z" });
  });
});
