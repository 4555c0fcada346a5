import { randomUUID } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectLog } from "../../streams/connection.ts";
import { countLiveConsumers } from "../../streams/live-ingest.ts";
import { createApp, projectWithApp } from "../support/catalog.ts";
import { anEvent, eventsWhen, ingest } from "../support/events.ts";
import { anError, client, type Client } from "../support/http.ts";
import { openLive, type LiveStream } from "../support/live-events.ts";
import { waitUntil } from "../support/processes.ts";
import { dropDatabase, startTestService, startWithOwner, stopTestService, testConfig, type TestService } from "../support/service.ts";
import { dropNamespace } from "../support/streams.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * GET /v1/events/live: events ingested after a client connected reach it within a second, in the
 * shape of GET /v1/events; the same filters, the same access; bad queries are 400; a client that
 * leaves frees its consumer; a process caps its streams and shuts down with streams open.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let outsider: SignedIn;
let first: Awaited<ReturnType<typeof projectWithApp>>;
let second: Awaited<ReturnType<typeof projectWithApp>>;
const streams: LiveStream[] = [];

const live = async (query: string, token?: string) => {
  const stream = await openLive(service.baseUrl, query, token);
  streams.push(stream);
  return stream;
};

/** An event of the tests' backend apps, which accept only the backend environment. */
const backendEvent = (fields: Record<string, unknown> = {}) => anEvent({ environment: "backend", ...fields });

async function send(clientKey: string, events: Record<string, unknown>[]): Promise<number> {
  const response = await ingest(http, clientKey, { events });
  if (response.status !== 200 || response.body.rejected !== 0) throw new Error(`ingest answered ${response.status}: ${JSON.stringify(response.body)}`);
  return Date.now();
}

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  outsider = await signIn(http, service.outbox);
  first = await projectWithApp(http, owner.token, owner.teamId, { platform: "backend", bundle_id: null });
  second = await projectWithApp(http, owner.token, owner.teamId, { platform: "backend", bundle_id: null });
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await stopTestService(service);
});

describe("GET /v1/events/live", () => {
  it("sends events ingested after connecting within a second, each as an item of GET /v1/events", async () => {
    const stream = await live(`project_id=${first.project.id}`, owner.token);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const message = `live ${randomUUID()}`;
    const acknowledged = await send(first.clientKey, [backendEvent({ message, custom_attributes: { plan: "yearly" }, screen_name: "Cart" })]);
    const arrived = await stream.next((event) => event.message === message);
    expect(arrived.at - acknowledged).toBeLessThan(1_000);
    const [stored] = await eventsWhen(http, owner.token, `project_id=${first.project.id}&limit=1`, (events) => events[0]?.message === message);
    expect(arrived.event).toEqual(stored);
    expect(stream.comments[0]).toBe("live");
  });

  it("keeps the connection alive every 15 s, and then also follows apps created since it opened", async () => {
    const stream = await live(`project_id=${second.project.id}`, owner.token);
    const added = await createApp(http, owner.token, second.project.id, { platform: "backend", bundle_id: null });
    await waitUntil("a keep-alive comment", () => stream.comments.includes("keep-alive"), 17_000, 100);
    await send(added.client_secret, [backendEvent({ message: "from a new app" })]);
    expect((await stream.next((event) => event.message === "from a new app")).event.app_id).toBe(added.id);
  }, 30_000);

  it("applies the filters of GET /v1/events: app, level, user, session, environment, screen, data mode", async () => {
    const session = randomUUID();
    const filtered = await live(`app_id=${second.app.id}&level=warn,error&user_id=u1&session_id=${session.toUpperCase()}&environment=backend&screen_name=Home`, owner.token);
    const development = await live(`project_id=${second.project.id}&data_mode=development`, owner.token);
    const wanted = { level: "error", user_id: "u1", session_id: session, environment: "backend", screen_name: "Home" };
    await send(first.clientKey, [backendEvent({ ...wanted, message: "other app" })]);
    await send(second.clientKey, [
      backendEvent({ ...wanted, message: "info level", level: "info" }),
      backendEvent({ ...wanted, message: "other user", user_id: "u2" }),
      backendEvent({ ...wanted, message: "other session", session_id: randomUUID() }),
      backendEvent({ ...wanted, message: "other screen", screen_name: "Cart" }),
      backendEvent({ ...wanted, message: "dev event", is_dev: true }),
      backendEvent({ ...wanted, message: "match warn", level: "warn" }),
      backendEvent({ ...wanted, message: "match error" }),
    ]);
    await filtered.next((event) => event.message === "match error");
    expect(filtered.messages.map((message) => message.event.message)).toEqual(["match warn", "match error"]);
    await development.next((event) => event.message === "dev event");
    expect(development.messages.map((message) => message.event.message)).toEqual(["dev event"]);
  });

  it("shows an outsider none of a team's events, as GET /v1/events does, and refuses what GET /v1/events refuses", async () => {
    const insider = await live(`project_id=${first.project.id}`, owner.token);
    const foreign = await live(`project_id=${first.project.id}`, outsider.token);
    const unscoped = await live("", outsider.token);
    expect(foreign.status).toBe(200);
    await send(first.clientKey, [backendEvent({ message: "private" })]);
    await insider.next((event) => event.message === "private");
    // The insider's copy arrived; the outsider's streams had the same chance and got nothing.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(foreign.messages).toEqual([]);
    expect(unscoped.messages).toEqual([]);
    expect((await http.get(`/v1/events?project_id=${first.project.id}`, { token: outsider.token })).body.events).toEqual([]);

    const limited = await http.post("/v1/auth/keys", { name: "no events", key_type: "agent", team_id: owner.teamId, permissions: ["apps:read"] }, { token: owner.token });
    for (const [token, status] of [[undefined, 401], [limited.body.api_key.secret, 403], [first.clientKey, 403]] as const) {
      const refused = await live(`project_id=${first.project.id}`, token);
      expect(refused).toMatchObject({ status, refusal: anError });
      expect((await http.get(`/v1/events?project_id=${first.project.id}`, { token })).status).toBe(status);
    }
  });

  it("answers a bad query 400 with a JSON error", async () => {
    for (const query of ["level=loud", "session_id=nope", "project_id=1", "since=yesterday", "since=1h&until=2h", "data_mode=both"]) {
      const refused = await live(query, owner.token);
      expect(refused, query).toMatchObject({ status: 400, refusal: anError });
    }
  });

  it("deletes its consumer when the client disconnects", async () => {
    await waitUntil("earlier streams to release their consumers", async () => {
      for (const stream of streams.splice(0)) stream.close();
      return (await countLiveConsumers(service.log)) === 0;
    });
    const stream = await live(`project_id=${first.project.id}`, owner.token);
    expect(await countLiveConsumers(service.log)).toBe(1);
    stream.close();
    await waitUntil("the consumer to be deleted", async () => (await countLiveConsumers(service.log)) === 0, 5_000);
  });
});

describe("a process's live streams", () => {
  let small: TestService | undefined;
  afterAll(async () => {
    if (!small) return;
    await small.close();
    await dropNamespace(small.config.natsServers, small.config.namespace).catch(() => undefined);
    await dropDatabase(small.databaseUrl).catch(() => undefined);
  });

  it("are capped (503 with Retry-After past the cap), and shutdown ends the open ones", async () => {
    small = await startTestService(await testConfig({ LIVE_STREAMS_MAX: "1" }), ["api", "projector"]);
    const smallHttp = client(small.baseUrl);
    const user = await signIn(smallHttp, small.outbox);
    const open = await openLive(small.baseUrl, "", user.token);
    expect(open.status).toBe(200);
    const refused = await openLive(small.baseUrl, "", user.token);
    expect(refused).toMatchObject({ status: 503, refusal: anError });
    expect(refused.headers.get("retry-after")).toBe("10");

    const started = Date.now();
    await small.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    await open.ended;
    // The closed service's own connection is gone: look at the stream from a new one.
    const observer = await connectLog(small.config.natsServers, small.config.namespace, pino({ level: "silent" }));
    try {
      expect(await countLiveConsumers(observer)).toBe(0);
    } finally {
      await observer.close();
    }
  });
});
