import { randomBytes, randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { normalizeBatch } from "../../domain/ingest/batch.ts";
import type { IngestedEvent } from "../../domain/ingest/events.ts";
import { encodeFacts } from "../../domain/ingest/fact.ts";
import { newId, timeOfId } from "../../domain/shared/ids.ts";
import { append } from "../../streams/append.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, eventsWhen, ingest } from "../support/events.ts";
import { anError, type Client, spendUntilRefused } from "../support/http.ts";
import { waitUntil } from "../support/processes.ts";
import { runReplayCli } from "../support/replay.ts";
import { startWithClient, startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { streamHead } from "../support/streams.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * POST /v1/ingest through HTTP against real NATS and Postgres: authentication, request and per-event
 * validation, gzip limits, the rate limit, client_event_id dedup and the country header. Projection
 * is asynchronous, so stored events are read by polling GET /v1/events.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
type AppUnderTest = { project: any; app: any; clientKey: string };
let apple: AppUnderTest;
let android: AppUnderTest;
let backend: AppUnderTest;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  apple = await projectWithApp(http, owner.token, owner.teamId, { platform: "apple", bundle_id: "com.example.ingest" });
  android = await projectWithApp(http, owner.token, owner.teamId, { platform: "android", bundle_id: "com.example.droid" });
  backend = await projectWithApp(http, owner.token, owner.teamId, { platform: "backend", bundle_id: null });
});
afterAll(async () => stopTestService(service));

const post = (target: AppUnderTest, events: unknown[], headers: Record<string, string> = {}) =>
  ingest(http, target.clientKey, { bundle_id: target.app.bundle_id ?? undefined, events }, { headers });

/** The stored events of an app, waiting until there are `count` of them. */
const storedEvents = (target: AppUnderTest, count: number, query = "") =>
  eventsWhen(http, owner.token, `app_id=${target.app.id}&data_mode=all&limit=200${query}`, (events) => events.length >= count);

describe("accepting events", () => {
  it("appends a valid batch, answers after the acknowledgement and projects every field", async () => {
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    const timestamp = new Date(Date.now() - 60_000).toISOString();
    const before = Date.now();
    const response = await post(apple, [
      anEvent({
        client_event_id: clientEventId,
        session_id: sessionId,
        message: "checkout",
        level: "warn",
        user_id: "user-1",
        source_module: "Cart",
        screen_name: "Basket",
        environment: "ipados",
        os_version: "17.2",
        app_version: "2.0.1",
        sdk_name: "swift",
        sdk_version: "1.4.0",
        build_number: "311",
        device_model: "iPad14,1",
        locale: "de_DE",
        is_dev: true,
        timestamp,
        custom_attributes: { plan: "pro", long: "x".repeat(250), count: 3, flag: false, nested: { a: 1 }, gone: null },
        country_code: "FR",
        id: randomUUID(),
      }),
      anEvent({ client_event_id: null, session_id: sessionId, message: "second" }),
    ], { "cf-ipcountry": "de" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ accepted: 2, rejected: 0 });

    const events = await storedEvents(apple, 2, `&session_id=${sessionId}`);
    const [stored] = events.filter((event) => event.client_event_id === clientEventId);
    const keys = await http.get(`/v1/auth/keys?team_id=${owner.teamId}`, { token: owner.token });
    const clientKeyId = keys.body.api_keys.find((key: { secret: string }) => key.secret === apple.clientKey).id;
    expect(stored).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      app_id: apple.app.id,
      client_event_id: clientEventId,
      session_id: sessionId,
      user_id: "user-1",
      api_key_id: clientKeyId,
      level: "warn",
      source_module: "Cart",
      message: "checkout",
      screen_name: "Basket",
      custom_attributes: { plan: "pro", long: "x".repeat(200), count: "3", flag: "false", nested: '{"a":1}' },
      environment: "ipados",
      os_version: "17.2",
      app_version: "2.0.1",
      sdk_name: "swift",
      sdk_version: "1.4.0",
      build_number: "311",
      device_model: "iPad14,1",
      locale: "de_DE",
      country_code: "DE",
      is_dev: true,
      timestamp,
      received_at: expect.any(String),
    });
    expect(stored.id).not.toBe(clientEventId);
    expect(timeOfId(stored.id)).toBe(Date.parse(timestamp));
    expect(Date.parse(stored.received_at)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Object.keys(stored)).not.toContain("ip");
  });

  it("stores text exactly as sent: quotes, backslashes, braces, commas, line breaks, NULL and non-ASCII", async () => {
    const sessionId = randomUUID();
    const tricky = ['say "hi"', "C:\\temp\\", "{a,b}", "NULL", "line\nbreak\ttab", "ünïcødé 🚀", ""];
    const events = tricky.map((text, index) =>
      anEvent({ session_id: sessionId, message: `${index}:${text}`, screen_name: text || null, user_id: text || null, custom_attributes: { text, [text || "empty"]: "key" } }),
    );
    expect((await post(apple, events)).body).toEqual({ accepted: tricky.length, rejected: 0 });
    const stored = await storedEvents(apple, tricky.length, `&session_id=${sessionId}`);
    for (const [index, text] of tricky.entries()) {
      const event = stored.find((candidate) => candidate.message === `${index}:${text}`);
      expect(event).toMatchObject({ screen_name: text || null, user_id: text || null, custom_attributes: { text, [text || "empty"]: "key" } });
    }
  });

  it("defaults the timestamp to server time, is_dev to false and a single-environment platform's environment", async () => {
    const sessionId = randomUUID();
    const before = Date.now();
    const response = await post(android, [{ message: "launch", level: "info", session_id: sessionId }]);
    expect(response.body).toEqual({ accepted: 1, rejected: 0 });
    const [stored] = await storedEvents(android, 1, `&session_id=${sessionId}`);
    expect(stored).toMatchObject({ environment: "android", is_dev: false, client_event_id: null, user_id: null, custom_attributes: {} });
    expect(Date.parse(stored.timestamp)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(stored.timestamp)).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it("keeps an apple event that names only the required fields, placed by its device model", async () => {
    const sessionId = randomUUID();
    const required = { message: "launch", level: "info", session_id: sessionId };
    const response = await post(apple, [required, { ...required, device_model: "iPad13,4" }]);
    expect(response.body).toEqual({ accepted: 2, rejected: 0 });
    const stored = await storedEvents(apple, 2, `&session_id=${sessionId}`);
    expect(stored.map((event) => event.environment).sort()).toEqual(["ios", "ipados"]);
  });

  it("accepts an empty batch without appending anything", async () => {
    expect((await post(apple, [])).body).toEqual({ accepted: 0, rejected: 0 });
  });
});

describe("per-event validation", () => {
  it("rejects each invalid event with events[<i>]: <reason> and keeps the valid ones", async () => {
    const now = Date.now();
    const cases: [unknown, RegExp][] = [
      ["not an object", /must be an object/],
      [{ ...anEvent(), message: undefined }, /message is required/],
      [anEvent({ message: "  " }), /message must be a non-empty string/],
      [anEvent({ message: 42 }), /message must be a non-empty string/],
      [anEvent({ message: "m".repeat(10_001) }), /message must be at most/],
      [{ ...anEvent(), level: undefined }, /level is required/],
      [anEvent({ level: "fatal" }), /level must be one of info, debug, warn, error/],
      [{ ...anEvent(), session_id: undefined }, /session_id is required/],
      [anEvent({ session_id: "not-a-uuid" }), /session_id must be a UUID/],
      [anEvent({ client_event_id: "nope" }), /client_event_id must be a UUID/],
      [anEvent({ user_id: 12 }), /user_id must be a string/],
      [anEvent({ device_model: "d".repeat(256) }), /device_model must be at most 255 characters/],
      [anEvent({ custom_attributes: ["a"] }), /custom_attributes must be an object/],
      [anEvent({ custom_attributes: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, "v"])) }), /at most 100 keys/],
      [anEvent({ environment: "android" }), /environment must be one of ios, ipados, macos, watchos for apple apps/],
      [anEvent({ is_dev: "yes" }), /is_dev must be a boolean/],
      [anEvent({ timestamp: "yesterday" }), /timestamp must be an ISO 8601 date-time/],
      [anEvent({ timestamp: new Date(now + 10 * 60_000).toISOString() }), /more than 5 minutes in the future/],
      [anEvent({ timestamp: new Date(now - 31 * DAY).toISOString() }), /more than 30 days in the past/],
    ];
    const valid = anEvent({ message: "valid one" });
    const response = await post(apple, [valid, ...cases.map(([event]) => event)]);
    expect(response.status).toBe(200);
    expect(response.body.accepted).toBe(1);
    expect(response.body.rejected).toBe(cases.length);
    expect(response.body.errors).toHaveLength(cases.length);
    cases.forEach(([, reason], i) => {
      const error = response.body.errors[i];
      expect(error.index).toBe(i + 1);
      expect(error.message).toMatch(new RegExp(`^events\\[${i + 1}\\]: `));
      expect(error.message).toMatch(reason);
    });
  });

  it("accepts timestamps just inside the window", async () => {
    const now = Date.now();
    const response = await post(apple, [
      anEvent({ timestamp: new Date(now + 4 * 60_000).toISOString() }),
      anEvent({ timestamp: new Date(now - 29 * DAY).toISOString() }),
    ]);
    expect(response.body).toEqual({ accepted: 2, rejected: 0 });
  });
});

describe("request validation and authentication", () => {
  it("answers 401 without a key or with an unknown key", async () => {
    const body = { bundle_id: apple.app.bundle_id, events: [anEvent()] };
    expect(await http.post("/v1/ingest", body)).toMatchObject({ status: 401, body: anError });
    expect(await ingest(http, `svc_client_${randomBytes(16).toString("hex")}`, body)).toMatchObject({ status: 401, body: anError });
  });

  it("answers 403 to agent keys, user sessions and client keys without events:write", async () => {
    const body = { bundle_id: apple.app.bundle_id, events: [anEvent()] };
    const agent = await http.post("/v1/auth/default-agent-key", { team_id: owner.teamId }, { token: owner.token });
    expect(await ingest(http, agent.body.secret, body)).toMatchObject({ status: 403, body: anError });
    expect(await ingest(http, owner.token, body)).toMatchObject({ status: 403, body: anError });
    const limited = await http.post(
      "/v1/auth/keys",
      { name: "users only", key_type: "client", app_id: apple.app.id, permissions: ["users:write"] },
      { token: owner.token },
    );
    expect(limited.status).toBe(201);
    expect(await ingest(http, limited.body.api_key.secret, body)).toMatchObject({ status: 403, body: anError });
  });

  it("checks bundle_id for client platforms and ignores it for backend apps", async () => {
    expect(await ingest(http, apple.clientKey, { events: [anEvent()] })).toMatchObject({ status: 400, body: anError });
    expect(await ingest(http, apple.clientKey, { bundle_id: 7, events: [anEvent()] })).toMatchObject({ status: 400, body: anError });
    expect(await ingest(http, apple.clientKey, { bundle_id: "com.example.other", events: [anEvent()] })).toMatchObject({ status: 403, body: anError });
    expect(await ingest(http, apple.clientKey, { bundle_id: "COM.EXAMPLE.INGEST", events: [anEvent()] })).toMatchObject({ status: 403 });
    const backendEvent = anEvent({ environment: "backend" });
    expect((await ingest(http, backend.clientKey, { events: [backendEvent] })).body).toEqual({ accepted: 1, rejected: 0 });
    expect((await ingest(http, backend.clientKey, { bundle_id: "anything", events: [backendEvent] })).body).toEqual({ accepted: 1, rejected: 0 });
  });

  it("answers 400 for a missing, non-array or oversized events list and for malformed bodies", async () => {
    const bundle = apple.app.bundle_id;
    expect(await ingest(http, apple.clientKey, { bundle_id: bundle })).toMatchObject({ status: 400, body: anError });
    expect(await ingest(http, apple.clientKey, { bundle_id: bundle, events: { 0: anEvent() } })).toMatchObject({ status: 400, body: anError });
    const tooMany = Array.from({ length: 101 }, () => anEvent());
    expect(await ingest(http, apple.clientKey, { bundle_id: bundle, events: tooMany })).toMatchObject({ status: 400, body: anError });
    expect(await ingest(http, apple.clientKey, [anEvent()])).toMatchObject({ status: 400, body: anError });
    const malformed = await http.call("POST", "/v1/ingest", { rawBody: "{not json", token: apple.clientKey, headers: { "content-type": "application/json" } });
    expect(malformed).toMatchObject({ status: 400, body: anError });
    const empty = await http.call("POST", "/v1/ingest", { token: apple.clientKey });
    expect(empty).toMatchObject({ status: 400, body: anError });
    const exactly100 = Array.from({ length: 100 }, () => anEvent());
    expect((await ingest(http, apple.clientKey, { bundle_id: bundle, events: exactly100 })).body).toEqual({ accepted: 100, rejected: 0 });
  });
});

describe("gzip bodies", () => {
  const gzipPost = (body: Uint8Array, encoding = "gzip") =>
    http.call("POST", "/v1/ingest", {
      rawBody: body,
      token: apple.clientKey,
      headers: { "content-type": "application/json", "content-encoding": encoding },
    });

  it("accepts a gzip body", async () => {
    const sessionId = randomUUID();
    const body = gzipSync(JSON.stringify({ bundle_id: apple.app.bundle_id, events: [anEvent({ session_id: sessionId }), anEvent({ session_id: sessionId })] }));
    expect(await gzipPost(body)).toMatchObject({ status: 200, body: { accepted: 2, rejected: 0 } });
    expect(await storedEvents(apple, 2, `&session_id=${sessionId}`)).toHaveLength(2);
  });

  it("answers 413 when the compressed body exceeds 1 MiB", async () => {
    // Random bytes do not compress: the gzip body itself is over the limit.
    const filler = randomBytes(800 * 1024).toString("base64");
    const body = gzipSync(JSON.stringify({ bundle_id: apple.app.bundle_id, events: [anEvent({ custom_attributes: { filler } })] }), { level: 0 });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    expect(await gzipPost(body)).toMatchObject({ status: 413, body: anError });
  });

  it("answers 413 when the body inflates beyond 1 MiB, however small it is compressed", async () => {
    const body = gzipSync(JSON.stringify({ bundle_id: apple.app.bundle_id, events: [anEvent({ message: "a".repeat(2 * 1024 * 1024) })] }));
    expect(body.length).toBeLessThan(64 * 1024);
    expect(await gzipPost(body)).toMatchObject({ status: 413, body: anError });
  });

  it("answers 413 for a plain body over 1 MiB, 400 for broken gzip and 415 for other encodings", async () => {
    const big = JSON.stringify({ bundle_id: apple.app.bundle_id, events: [anEvent({ message: "a".repeat(1100 * 1024) })] });
    const plain = await http.call("POST", "/v1/ingest", { rawBody: big, token: apple.clientKey, headers: { "content-type": "application/json" } });
    expect(plain).toMatchObject({ status: 413, body: anError });
    expect(await gzipPost(new TextEncoder().encode("not gzip at all"))).toMatchObject({ status: 400, body: anError });
    expect(await gzipPost(gzipSync("{}"), "br")).toMatchObject({ status: 415, body: anError });
  });
});

describe("rate limit", () => {
  it("answers 429 with Retry-After: 1 once the key's 100 tokens are spent, and recovers", async () => {
    const limited = await projectWithApp(http, owner.token, owner.teamId, { platform: "web", bundle_id: "example.com" });
    const send = () => ingest(http, limited.clientKey, { bundle_id: "example.com", events: [] });
    const { refused, sent } = await spendUntilRefused(send, [200]);
    expect(sent).toBeGreaterThanOrEqual(100);
    expect(refused).toMatchObject({ status: 429, body: anError });
    expect(refused!.headers.get("retry-after")).toBe("1");
    // Other keys have their own buckets.
    expect((await post(apple, [])).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await send()).status).toBe(200);
  });

  it("counts requests without a valid key against their address: 401 until its 100 tokens are spent, then 429", async () => {
    const send = () => ingest(http, "svc_client_not-a-key", { bundle_id: "example.com", events: [] });
    const { refused, sent } = await spendUntilRefused(send, [401]);
    expect(sent).toBeGreaterThanOrEqual(100);
    expect(refused).toMatchObject({ status: 429, body: anError });
    expect(refused!.headers.get("retry-after")).toBe("1");
    // A valid key has its own bucket, and the address's refills.
    expect((await post(apple, [])).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await send()).status).toBe(401);
  });
});

describe("client_event_id dedup", () => {
  it("keeps one event for a client_event_id repeated inside a batch, counting the repeats as accepted", async () => {
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    const response = await post(apple, [
      anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "first" }),
      anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "second" }),
      anEvent({ session_id: sessionId, message: "other" }),
    ]);
    expect(response.body).toEqual({ accepted: 3, rejected: 0 });
    const events = await storedEvents(apple, 2, `&session_id=${sessionId}`);
    expect(events.map((event) => event.message).sort()).toEqual(["first", "other"]);
  });

  it("skips a client_event_id already sent in an earlier batch", async () => {
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    expect((await post(apple, [anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "original" })])).body.accepted).toBe(1);
    await storedEvents(apple, 1, `&session_id=${sessionId}`);
    const again = await post(apple, [
      anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "retry" }),
      anEvent({ session_id: sessionId, message: "new" }),
    ]);
    expect(again.body).toEqual({ accepted: 2, rejected: 0 });
    const events = await storedEvents(apple, 2, `&session_id=${sessionId}`);
    expect(events.map((event) => event.message).sort()).toEqual(["new", "original"]);
  });

  it("dedups per app: the same client_event_id in another app is another event", async () => {
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    await post(apple, [anEvent({ session_id: sessionId, client_event_id: clientEventId })]);
    await post(android, [anEvent({ session_id: sessionId, client_event_id: clientEventId, environment: "android" })]);
    expect(await storedEvents(apple, 1, `&session_id=${sessionId}`)).toHaveLength(1);
    expect(await storedEvents(android, 1, `&session_id=${sessionId}`)).toHaveLength(1);
  });

  it("stores one event when duplicates arrive concurrently and before the first is projected", async () => {
    const runner = service.runners.find((candidate) => candidate.projection.name === "events")!;
    await runner.stop();
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    try {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => post(apple, [anEvent({ session_id: sessionId, client_event_id: clientEventId, message: `copy ${i}` })])),
      );
      expect(answers.map((answer) => answer.body)).toEqual(Array.from({ length: 8 }, () => ({ accepted: 1, rejected: 0 })));
      const marker = await post(apple, [anEvent({ session_id: sessionId, message: "marker" })]);
      expect(marker.body.accepted).toBe(1);
    } finally {
      runner.start();
    }
    // The marker was appended last: once it is visible every copy has been applied.
    const events = await eventsWhen(http, owner.token, `app_id=${apple.app.id}&session_id=${sessionId}&data_mode=all`, (found) =>
      found.some((event) => event.message === "marker"),
    );
    expect(events.filter((event) => event.client_event_id === clientEventId)).toHaveLength(1);
  });
});

describe("client_event_id dedup, decided by receipt time", () => {
  /** Appends an ingest batch received at `receivedMs` straight to the stream, as the API would have. */
  async function appendReceived(receivedMs: number, events: object[]): Promise<void> {
    await appendNormalized(receivedMs, normalizeBatch(events, { mode: "ingest", platform: "apple", nowMs: receivedMs }).events);
  }

  async function appendNormalized(receivedMs: number, events: IngestedEvent[]): Promise<void> {
    const source = {
      batchId: newId(),
      mode: "ingest" as const,
      app: { id: apple.app.id, team_id: owner.teamId, project_id: apple.project.id, platform: "apple" as const },
      apiKeyId: randomUUID(),
      receivedAt: new Date(receivedMs).toISOString(),
      countryCode: null,
    };
    for (const fact of encodeFacts(source, events, 900_000)) {
      await append(service.log, service.log.names.ingestSubject(apple.project.id, apple.app.id), fact.payload, { msgId: fact.id });
    }
  }

  it("skips a repeat of an ingested event whose timestamp lies beyond the dedup probe's reach", async () => {
    // The API rejects such timestamps (more than 30 days before receipt), but the projector must
    // not depend on it: a fact that carries one is remembered in event_dedup and still deduplicated.
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    const receivedMs = Date.now() - HOUR;
    const timestamp = new Date(receivedMs - 40 * DAY).toISOString();
    const event = anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "far back", timestamp });
    const batch = normalizeBatch([event], { mode: "ingest", platform: "apple", nowMs: Date.parse(timestamp) + 60_000 });
    await appendNormalized(receivedMs, batch.events);
    await appendReceived(Date.now(), [anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "resent" }), anEvent({ session_id: sessionId, message: "marker" })]);
    const since = new Date(Date.parse(timestamp) - HOUR).toISOString();
    const events = await eventsWhen(http, owner.token, `app_id=${apple.app.id}&session_id=${sessionId}&data_mode=all&since=${since}`, (found) =>
      found.some((candidate) => candidate.message === "marker"),
    );
    expect(events.map((candidate) => candidate.message).sort()).toEqual(["far back", "marker"]);
  });

  it("keeps a repeat once the event that made its predecessor a duplicate is outside its window, however the facts are batched", async () => {
    // first: kept. second, 47 hours later: a duplicate of first. third, 49 hours after first: first
    // is beyond its window and second was not kept, so third is kept. Applied in one projector
    // batch (the projector is stopped while they are appended), as a replay would apply them.
    const runner = service.runners.find((candidate) => candidate.projection.name === "events")!;
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    const first = Date.now() - 52 * HOUR;
    const copy = (receivedMs: number, message: string) =>
      anEvent({ session_id: sessionId, client_event_id: clientEventId, message, timestamp: new Date(receivedMs - 60_000).toISOString() });
    await runner.stop();
    try {
      await appendReceived(first, [copy(first, "first")]);
      await appendReceived(first + 47 * HOUR, [copy(first + 47 * HOUR, "second")]);
      await appendReceived(first + 49 * HOUR, [copy(first + 49 * HOUR, "third"), anEvent({ session_id: sessionId, message: "marker" })]);
    } finally {
      runner.start();
    }
    const since = new Date(first - HOUR).toISOString();
    const events = await eventsWhen(http, owner.token, `app_id=${apple.app.id}&session_id=${sessionId}&data_mode=all&since=${since}`, (found) =>
      found.some((event) => event.message === "marker"),
    );
    expect(events.map((event) => event.message).sort()).toEqual(["first", "marker", "third"]);
  });
});

describe("country_code", () => {
  const countryOf = async (target: AppUnderTest, headers: Record<string, string>, event: Record<string, unknown> = {}) => {
    const sessionId = randomUUID();
    const environment = target === backend ? "backend" : target === android ? "android" : "ios";
    expect((await post(target, [anEvent({ session_id: sessionId, environment, ...event })], headers)).body.accepted).toBe(1);
    const [stored] = await storedEvents(target, 1, `&session_id=${sessionId}`);
    return stored.country_code;
  };

  it("comes from the configured country header, upper-cased", async () => {
    expect(await countryOf(apple, { "cf-ipcountry": "US" })).toBe("US");
    expect(await countryOf(android, { "cf-ipcountry": "gb" })).toBe("GB");
  });

  it("is null for XX, T1, a malformed or missing header, and ignores the client's value", async () => {
    expect(await countryOf(apple, { "cf-ipcountry": "XX" })).toBeNull();
    expect(await countryOf(apple, { "cf-ipcountry": "T1" })).toBeNull();
    expect(await countryOf(apple, { "cf-ipcountry": "Germany" })).toBeNull();
    expect(await countryOf(apple, {}, { country_code: "FR" })).toBeNull();
    expect(await countryOf(apple, { "cf-ipcountry": "DE" }, { country_code: "FR" })).toBe("DE");
  });

  it("is always null for backend apps", async () => {
    expect(await countryOf(backend, { "cf-ipcountry": "DE" })).toBeNull();
  });
});

describe("claimed anonymous ids", () => {
  it("moves an anonymous id's events in the project to the claiming user and re-attributes later ones", async () => {
    const anonymous = `svc_anon_${randomUUID()}`;
    const known = `user-${randomUUID()}`;
    const sessionId = randomUUID();
    await post(apple, [anEvent({ user_id: anonymous, session_id: sessionId }), anEvent({ user_id: anonymous, session_id: sessionId })]);
    // Identity is per project: the android app lives in another project and keeps its event.
    await post(android, [anEvent({ user_id: anonymous, session_id: sessionId, environment: "android" })]);
    await eventsWhen(http, owner.token, `user_id=${anonymous}&data_mode=all`, (events) => events.length === 3);
    const claimed = await http.post("/v1/identity/claim", { anonymous_id: anonymous, user_id: known }, { token: apple.clientKey });
    expect(claimed).toMatchObject({ status: 200, body: { claimed: true } });
    await eventsWhen(http, owner.token, `user_id=${encodeURIComponent(known)}&data_mode=all`, (events) => events.length === 2);
    const left = (await http.get(`/v1/events?user_id=${anonymous}&data_mode=all`, { token: owner.token })).body.events;
    expect(left.map((event: { app_id: string }) => event.app_id)).toEqual([android.app.id]);
    await post(apple, [anEvent({ user_id: anonymous, session_id: sessionId, message: "after the claim" })]);
    const after = await eventsWhen(http, owner.token, `user_id=${encodeURIComponent(known)}&data_mode=all`, (events) => events.length === 3);
    expect(after.some((event) => event.message === "after the claim")).toBe(true);
  });
});

describe("replay", () => {
  /** Every row of the events read model, read through the public views, in a stable order. */
  async function snapshot(): Promise<Record<string, string[]>> {
    const rows = async (view: string) =>
      (await service.pool.anyFirst(sql.type(z.object({ row: z.string() }))`select to_jsonb(t)::text as row from ${sql.identifier([view])} t`)).slice().sort();
    // The count rollups too, their HyperLogLog sketches byte for byte (to_jsonb gives their text form).
    const rollups = ["event_totals_minute", "event_totals_hour"];
    return Object.fromEntries(await Promise.all(["events", "event_dedup", ...rollups].map(async (view) => [view, await rows(view)])));
  }

  it("rebuilds identical rows, monthly partitions included, through the operator CLI", async () => {
    const head = await streamHead(service.log, "INGEST");
    await waitUntil("the events read model to reach the head of INGEST", async () =>
      (await service.pool.oneFirst(sql.type(z.object({ last_seq: z.number() }))`
        select c.last_seq from projection_checkpoints c
          join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
         where c.projection = 'events'`)) >= head,
    );
    const before = await snapshot();
    expect(before.events!.length).toBeGreaterThan(100);
    expect(before.event_totals_hour!.length).toBeGreaterThan(0);
    const cli = runReplayCli(service, "events");
    expect(await cli.exited, cli.output()).toEqual({ code: 0, signal: null });
    expect(cli.output()).toContain("read model events rebuilt as generation 2 and swapped in");
    expect(await snapshot()).toEqual(before);
    const partitions = await service.pool.anyFirst(sql.type(z.object({ name: z.string() }))`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        join pg_class p on p.oid = i.inhparent join pg_namespace n on n.oid = p.relnamespace
       where p.relname = 'events' and n.nspname = 'rm_events_g2'`);
    const months = await service.pool.anyFirst(sql.type(z.object({ month: z.string() }))`
      select distinct 'events_p' || to_char("timestamp" at time zone 'UTC', 'YYYYMM') as month from events order by 1`);
    // At least this month and the month 29 days back (the oldest accepted timestamp above).
    expect(months.length).toBeGreaterThanOrEqual(1);
    expect(partitions.slice().sort()).toEqual([...months]);

    // The live projector follows the new generation.
    const sessionId = randomUUID();
    await post(apple, [anEvent({ session_id: sessionId })]);
    expect(await storedEvents(apple, 1, `&session_id=${sessionId}`)).toHaveLength(1);
  });
});

describe("restart", () => {
  it("still skips a client_event_id sent before the service restarted", async () => {
    const sessionId = randomUUID();
    const clientEventId = randomUUID();
    await post(apple, [anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "before" })]);
    await storedEvents(apple, 1, `&session_id=${sessionId}`);
    await service.close();
    // Same database and namespace: the dedup state lives in the read model, not in the process.
    ({ service, http } = await startWithClient(service.config));
    const again = await post(apple, [
      anEvent({ session_id: sessionId, client_event_id: clientEventId, message: "after" }),
      anEvent({ session_id: sessionId, message: "marker" }),
    ]);
    expect(again.body).toEqual({ accepted: 2, rejected: 0 });
    const events = await eventsWhen(http, owner.token, `app_id=${apple.app.id}&session_id=${sessionId}&data_mode=all`, (found) =>
      found.some((event) => event.message === "marker"),
    );
    expect(events.map((event) => event.message).sort()).toEqual(["before", "marker"]);
  });
});
