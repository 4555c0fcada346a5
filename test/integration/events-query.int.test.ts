import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timeOrderedId } from "../../domain/shared/ids.ts";
import { createApp, projectWithApp } from "../support/catalog.ts";
import { anEvent, eventsWhen, ingest } from "../support/events.ts";
import { anError, type Client, spendUntilRefused } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * GET /v1/events, /v1/events/count, /v1/events/series and /v1/events/:id over a fixed set of ingested events: every
 * filter, data_mode, since/until, order, cursor pages (including runs of equal timestamps), counts,
 * access per team for users and agent keys, and the rate limit.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let outsider: SignedIn;
let agentKey: string;

type Seeded = { key: string; message: string; app: string; project: string; level: string; user: string | null; session: string; environment: string; screen: string | null; dev: boolean; timestamp: string };
const seeded: Seeded[] = [];
const ids = new Map<string, string>();
let appleApp: any;
let webApp: any;
let androidApp: any;
let projectOne: any;
let projectTwo: any;
let foreignApp: any;

const sessions = { s1: randomUUID(), s2: randomUUID(), s3: randomUUID(), s4: randomUUID(), s5: randomUUID(), s6: randomUUID() };
const base = Math.floor((Date.now() - 2 * 3_600_000) / 1000) * 1000;
const at = (seconds: number) => new Date(base + seconds * 1000).toISOString();
const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString();

function seed(key: string, app: any, fields: Omit<Seeded, "key" | "message" | "app" | "project">): Seeded {
  const row = { key, message: `event ${key}`, app: app.id, project: app.project_id, ...fields };
  seeded.push(row);
  return row;
}

const toIngest = (row: Seeded) =>
  anEvent({
    message: row.message,
    level: row.level,
    user_id: row.user,
    session_id: row.session,
    environment: row.environment,
    screen_name: row.screen,
    is_dev: row.dev,
    timestamp: row.timestamp,
  });

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  outsider = await signIn(http, service.outbox);
  const one = await projectWithApp(http, owner.token, owner.teamId, { platform: "apple", bundle_id: "com.example.query" });
  projectOne = one.project;
  appleApp = one.app;
  webApp = await createApp(http, owner.token, projectOne.id, { platform: "web", bundle_id: "query.example.com" });
  const two = await projectWithApp(http, owner.token, owner.teamId, { platform: "android", bundle_id: "com.example.query.droid" });
  projectTwo = two.project;
  androidApp = two.app;
  const foreign = await projectWithApp(http, outsider.token, outsider.teamId, { platform: "backend", bundle_id: null });
  foreignApp = foreign.app;
  agentKey = (await http.post("/v1/auth/default-agent-key", { team_id: owner.teamId }, { token: owner.token })).body.secret;

  const common = { user: null as string | null, screen: null as string | null, dev: false };
  const apple = [
    seed("e1", appleApp, { ...common, level: "info", user: "u1", session: sessions.s1, environment: "ios", screen: "Home", timestamp: at(1) }),
    seed("e2", appleApp, { ...common, level: "warn", user: "u2", session: sessions.s1, environment: "ipados", screen: "Settings", timestamp: at(2) }),
    seed("e3", appleApp, { ...common, level: "error", user: "u1", session: sessions.s2, environment: "ios", screen: "Home", timestamp: at(3) }),
    seed("e4", appleApp, { ...common, level: "debug", session: sessions.s3, environment: "macos", dev: true, timestamp: at(4) }),
    // A run of equal timestamps, as a batch sent without timestamps gets.
    ...["e5", "e6", "e7", "e8", "e9"].map((key) => seed(key, appleApp, { ...common, level: "info", user: "u3", session: sessions.s4, environment: "ios", timestamp: at(5) })),
    seed("e10", appleApp, { ...common, level: "info", user: "u1", session: sessions.s1, environment: "ios", timestamp: threeDaysAgo }),
  ];
  const android = [seed("e11", androidApp, { ...common, level: "info", user: "u1", session: sessions.s5, environment: "android", timestamp: at(6) })];
  const web = [seed("e12", webApp, { ...common, level: "error", user: "u4", session: sessions.s6, environment: "web", timestamp: at(7) })];

  const send = async (key: string, bundle: string | null, rows: Seeded[]) => {
    const response = await ingest(http, key, { bundle_id: bundle ?? undefined, events: rows.map(toIngest) });
    if (response.status !== 200 || response.body.rejected !== 0) throw new Error(`ingest answered ${response.status}: ${JSON.stringify(response.body)}`);
  };
  await send(one.clientKey, appleApp.bundle_id, apple);
  await send(two.clientKey, androidApp.bundle_id, android);
  await send(webApp.client_secret, webApp.bundle_id, web);
  await send(foreign.clientKey, null, [{ key: "f1", message: "event f1", app: foreignApp.id, project: foreignApp.project_id, level: "info", user: "x", session: randomUUID(), environment: "backend", screen: null, dev: false, timestamp: at(8) }]);

  const stored = await eventsWhen(http, owner.token, "data_mode=all&limit=200", (events) => events.length >= seeded.length);
  for (const event of stored) ids.set(seeded.find((row) => row.message === event.message)!.key, event.id);
  await eventsWhen(http, outsider.token, "data_mode=all", (events) => events.length === 1);
});
afterAll(async () => stopTestService(service));

/** Keys of the seeded events matching `keep`, newest first (ties by id, descending). */
function expected(keep: (row: Seeded) => boolean, dataMode: "production" | "development" | "all" = "production"): string[] {
  return seeded
    .filter((row) => (dataMode === "all" ? true : dataMode === "development" ? row.dev : !row.dev))
    .filter(keep)
    .sort((a, b) => (a.timestamp === b.timestamp ? (ids.get(b.key)! < ids.get(a.key)! ? -1 : 1) : a.timestamp < b.timestamp ? 1 : -1))
    .map((row) => row.key);
}

const keyOf = (event: { message: string }) => event.message.replace("event ", "");

async function list(query: string, token = owner.token): Promise<string[]> {
  const response = await http.get(`/v1/events?limit=200&${query}`, { token });
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ cursor: null, has_more: false });
  return response.body.events.map(keyOf);
}

describe("GET /v1/events filters", () => {
  it("lists production events of every app the user's teams own, newest first", async () => {
    expect(await list("")).toEqual(expected(() => true));
  });

  it("takes an empty parameter as an absent one", async () => {
    expect(await list("environment=&user_id=&level=&since=&data_mode=&cursor=&order=")).toEqual(expected(() => true));
  });

  it("narrows by team, project and app; a team the caller is not in gives an empty list", async () => {
    expect(await list(`team_id=${owner.teamId}`)).toEqual(expected(() => true));
    expect(await list(`team_id=${outsider.teamId}`)).toEqual([]);
    expect(await list(`project_id=${projectOne.id}`)).toEqual(expected((row) => row.project === projectOne.id));
    expect(await list(`project_id=${projectTwo.id}`)).toEqual(["e11"]);
    expect(await list(`app_id=${webApp.id}`)).toEqual(["e12"]);
    expect(await list(`app_id=${foreignApp.id}`)).toEqual([]);
    expect(await list(`project_id=${projectTwo.id}&app_id=${appleApp.id}`)).toEqual([]);
  });

  it("filters by level (one or a comma list), user, session, environment and exact screen name", async () => {
    expect(await list("level=error")).toEqual(expected((row) => row.level === "error"));
    expect(await list("level=warn,error")).toEqual(expected((row) => row.level === "warn" || row.level === "error"));
    expect(await list("user_id=u1")).toEqual(expected((row) => row.user === "u1"));
    expect(await list(`session_id=${sessions.s1}`)).toEqual(expected((row) => row.session === sessions.s1));
    expect(await list(`session_id=${sessions.s1.toUpperCase()}`)).toEqual(expected((row) => row.session === sessions.s1));
    expect(await list("environment=ipados")).toEqual(["e2"]);
    expect(await list("screen_name=Home")).toEqual(expected((row) => row.screen === "Home"));
    expect(await list("screen_name=home")).toEqual([]);
    expect(await list(`level=info&user_id=u1&app_id=${appleApp.id}`)).toEqual(["e1", "e10"]);
  });

  it("applies data_mode: production by default, development only, or all", async () => {
    expect(await list("data_mode=production")).toEqual(expected(() => true));
    expect(await list("data_mode=development")).toEqual(["e4"]);
    expect(await list("data_mode=all")).toEqual(expected(() => true, "all"));
  });

  it("bounds by since and until, relative or ISO 8601", async () => {
    const recent = expected((row) => row.key !== "e10");
    expect(await list("since=1d")).toEqual(recent);
    expect(await list("since=24h")).toEqual(recent);
    expect(await list(`since=${encodeURIComponent(at(3))}`)).toEqual(expected((row) => row.timestamp >= at(3)));
    expect(await list(`until=${encodeURIComponent(at(3))}`)).toEqual(expected((row) => row.timestamp <= at(3)));
    expect(await list(`since=${encodeURIComponent(at(2))}&until=${encodeURIComponent(at(3))}`)).toEqual(["e3", "e2"]);
    expect(await list("until=2d")).toEqual(["e10"]);
    expect(await list("since=30m")).toEqual([]);
  });

  it("orders ascending on request", async () => {
    expect(await list("order=asc")).toEqual(expected(() => true).reverse());
  });
});

describe("GET /v1/events pages", () => {
  /** Pages through with the agent key (its own rate-limit bucket: a walk takes many requests). */
  async function walk(query: string, limit: number): Promise<{ keys: string[]; cursors: string[] }> {
    const keys: string[] = [];
    const cursors: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 50; page += 1) {
      const response: any = await http.get(`/v1/events?limit=${limit}&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { token: agentKey });
      expect(response.status).toBe(200);
      expect(response.body.events.length).toBeLessThanOrEqual(limit);
      keys.push(...response.body.events.map(keyOf));
      if (!response.body.has_more) {
        expect(response.body.cursor).toBeNull();
        return { keys, cursors };
      }
      cursor = response.body.cursor;
      cursors.push(cursor!);
    }
    throw new Error("too many pages");
  }

  it.each([1, 2, 3, 4])("walks every event exactly once with limit %i, descending and ascending", async (limit) => {
    const down = await walk("data_mode=all", limit);
    expect(down.keys).toEqual(expected(() => true, "all"));
    const up = await walk("data_mode=all&order=asc", limit);
    expect(up.keys).toEqual(expected(() => true, "all").reverse());
  });

  it("uses the last timestamp as cursor, adding the id only inside a run of equal timestamps", async () => {
    const { cursors } = await walk(`app_id=${appleApp.id}`, 2);
    expect(cursors.some((cursor) => /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(cursor))).toBe(true);
    expect(cursors.some((cursor) => /^\d{4}-\d{2}-\d{2}T[\d:.]+Z\|[0-9a-f-]{36}$/.test(cursor))).toBe(true);
    const first = await http.get(`/v1/events?limit=1&app_id=${webApp.id}&data_mode=all`, { token: owner.token });
    expect(first.body).toMatchObject({ has_more: false, cursor: null });
  });

  it("accepts a plain timestamp as cursor: events strictly before it", async () => {
    expect(await list(`cursor=${encodeURIComponent(at(3))}`)).toEqual(expected((row) => row.timestamp < at(3)));
    expect(await list(`order=asc&cursor=${encodeURIComponent(at(5))}`)).toEqual(expected((row) => row.timestamp > at(5)).reverse());
  });
});

describe("GET /v1/events/count", () => {
  const countOf = (keep: (row: Seeded) => boolean, dataMode: "production" | "development" | "all" = "production") => {
    const rows = seeded.filter((row) => (dataMode === "all" ? true : dataMode === "development" ? row.dev : !row.dev)).filter(keep);
    return {
      count: rows.length,
      unique_users: new Set(rows.map((row) => row.user).filter((user) => user !== null)).size,
      unique_sessions: new Set(rows.map((row) => row.session)).size,
      // A few events: the distinct counts are exact.
      estimated: false,
    };
  };
  const count = async (query: string, token = owner.token) => {
    const response = await http.get(`/v1/events/count?${query}`, { token });
    expect(response.status).toBe(200);
    return response.body;
  };

  it("counts events, distinct users and distinct sessions under the same filters as the list", async () => {
    expect(await count("")).toEqual(countOf(() => true));
    expect(await count("data_mode=all")).toEqual(countOf(() => true, "all"));
    expect(await count("data_mode=development")).toEqual(countOf(() => true, "development"));
    expect(await count("level=error,warn")).toEqual(countOf((row) => row.level === "error" || row.level === "warn"));
    expect(await count(`app_id=${appleApp.id}&since=1d`)).toEqual(countOf((row) => row.app === appleApp.id && row.key !== "e10"));
    expect(await count(`user_id=u1&environment=ios`)).toEqual(countOf((row) => row.user === "u1" && row.environment === "ios"));
    expect(await count(`team_id=${outsider.teamId}`)).toEqual({ count: 0, unique_users: 0, unique_sessions: 0, estimated: false });
    expect(await count("", outsider.token)).toEqual({ count: 1, unique_users: 1, unique_sessions: 1, estimated: false });
  });
});

describe("GET /v1/events/series", () => {
  const startOf = (timestamp: string, interval: "hour" | "day") => {
    const width = interval === "hour" ? 3_600_000 : 86_400_000;
    return new Date(Math.floor(Date.parse(timestamp) / width) * width).toISOString().replace(".000Z", "Z");
  };
  const series = async (query: string) => {
    const response = await http.get(`/v1/events/series?${query}`, { token: owner.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body as { interval: "hour" | "day"; since: string; until: string; buckets: { start: string; count: number }[] };
  };
  /** The buckets the seeded events give for the answer's own window. */
  const expected = (body: Awaited<ReturnType<typeof series>>, keep: (row: Seeded) => boolean, dataMode: "production" | "all" = "production") =>
    body.buckets.map(({ start }) => ({
      start,
      count: seeded.filter(
        (row) => (dataMode === "all" || !row.dev) && keep(row) && row.timestamp >= body.since && row.timestamp <= body.until && startOf(row.timestamp, body.interval) === start,
      ).length,
    }));

  it("counts events per UTC hour of the last day by default, every bucket present, from the totals", async () => {
    const body = await series("");
    expect(body.interval).toBe("hour");
    expect(body.buckets.length).toBeGreaterThanOrEqual(24);
    expect(body.buckets.length).toBeLessThanOrEqual(25);
    expect(body.buckets.some((bucket) => bucket.count === 0)).toBe(true);
    expect(body.buckets).toEqual(expected(body, () => true));
    expect(body.buckets.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(seeded.filter((row) => !row.dev && row.timestamp >= body.since).length);
  });

  it("cuts by day, takes the count's filters (read from the rows) and data_mode", async () => {
    const days = await series("since=4d&interval=day&data_mode=all");
    expect(days.buckets).toEqual(expected(days, () => true, "all"));
    expect(days.buckets.some((bucket) => bucket.start === startOf(threeDaysAgo, "day") && bucket.count === 1)).toBe(true);
    const errors = await series("since=4d&interval=day&level=error,warn");
    expect(errors.buckets).toEqual(expected(errors, (row) => row.level === "error" || row.level === "warn"));
    // Error events alone come from the totals' error counts, hour by hour as the overview's chart asks.
    for (const query of ["since=4d&interval=day&level=error&data_mode=all", "since=24h&level=error"]) {
      const onlyErrors = await series(query);
      expect(onlyErrors.buckets).toEqual(expected(onlyErrors, (row) => row.level === "error", query.includes("data_mode=all") ? "all" : "production"));
    }
    const apple = await series(`since=3h&app_id=${appleApp.id}&environment=ios`);
    expect(apple.buckets).toEqual(expected(apple, (row) => row.app === appleApp.id && row.environment === "ios"));
  });

  it("answers 400 for an unknown interval, too many buckets or a window that ends before it starts", async () => {
    expect(await http.get("/v1/events/series?interval=week", { token: owner.token })).toMatchObject({ status: 400, body: anError });
    const tooMany = await http.get("/v1/events/series?since=60d", { token: owner.token });
    expect(tooMany).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^interval: \d+ buckets of a hour; at most 744/) } });
    expect(await http.get("/v1/events/series?since=1h&until=2h", { token: owner.token })).toMatchObject({ status: 400, body: anError });
  });
});

describe("GET /v1/events/:id", () => {
  it("returns the event with project_id and an empty attachments list", async () => {
    const response = await http.get(`/v1/events/${ids.get("e2")}`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: ids.get("e2"),
      app_id: appleApp.id,
      project_id: projectOne.id,
      level: "warn",
      user_id: "u2",
      session_id: sessions.s1,
      environment: "ipados",
      screen_name: "Settings",
      timestamp: at(2),
      attachments: [],
    });
    expect((await http.get(`/v1/events/${ids.get("e4")}`, { token: agentKey })).body.is_dev).toBe(true);
  });

  it("answers 404 for unknown ids and for events of other teams, 400 for malformed ids", async () => {
    expect(await http.get(`/v1/events/${ids.get("e2")}`, { token: outsider.token })).toMatchObject({ status: 404, body: anError });
    expect(await http.get(`/v1/events/${timeOrderedId(Date.parse(at(2)))}`, { token: owner.token })).toMatchObject({ status: 404, body: anError });
    expect(await http.get(`/v1/events/${randomUUID()}`, { token: owner.token })).toMatchObject({ status: 404, body: anError });
    expect(await http.get("/v1/events/not-an-id", { token: owner.token })).toMatchObject({ status: 400, body: anError });
  });
});

describe("access", () => {
  it("lets members of any role and agent keys with events:read see their team's events", async () => {
    const member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    expect(await list("", member.token)).toEqual(expected(() => true));
    expect(await list("", agentKey)).toEqual(expected(() => true));
  });

  it("answers 401 without credentials and 403 to keys without events:read", async () => {
    expect(await http.get("/v1/events")).toMatchObject({ status: 401, body: anError });
    expect(await http.get("/v1/events/count")).toMatchObject({ status: 401, body: anError });
    const limited = await http.post("/v1/auth/keys", { name: "no events", key_type: "agent", team_id: owner.teamId, permissions: ["apps:read"] }, { token: owner.token });
    expect(limited.status).toBe(201);
    for (const path of ["/v1/events", "/v1/events/count", `/v1/events/${ids.get("e1")}`]) {
      expect(await http.get(path, { token: limited.body.api_key.secret })).toMatchObject({ status: 403, body: anError });
    }
    expect(await http.get("/v1/events", { token: webApp.client_secret })).toMatchObject({ status: 403, body: anError });
  });

  it("shows another team's agent key only its own team", async () => {
    const foreignKey = (await http.post("/v1/auth/default-agent-key", { team_id: outsider.teamId }, { token: outsider.token })).body.secret;
    expect(await list("", foreignKey)).toEqual(["f1"]);
    expect(await list(`app_id=${appleApp.id}`, foreignKey)).toEqual([]);
    expect(await http.get(`/v1/events/${ids.get("e1")}`, { token: foreignKey })).toMatchObject({ status: 404 });
  });
});

describe("parameters", () => {
  it.each([
    "limit=0",
    "limit=1.5",
    "limit=ten",
    "level=fatal",
    "level=info,loud",
    "session_id=not-a-uuid",
    "app_id=nope",
    "environment=tv",
    "data_mode=everything",
    "order=sideways",
    "since=yesterday",
    "until=2024-13-45",
    "since=2024-02-30",
    "user_id=a%00b",
    "since=1h&until=2h",
    "screen_name=%00",
    "until=2024-02-30T10:00:00Z",
    "cursor=nonsense",
    `cursor=${encodeURIComponent(`${at(1)}|not-an-id`)}`,
  ])("answers 400 for %s", async (query) => {
    expect(await http.get(`/v1/events?${query}`, { token: owner.token })).toMatchObject({ status: 400, body: anError });
  });
});

describe("rate limit", () => {
  it("answers 429 with Retry-After: 1 when an identity spends its 100 tokens", async () => {
    const key = (await http.post("/v1/auth/keys", { name: "hammer", key_type: "agent", team_id: owner.teamId }, { token: owner.token })).body.api_key.secret;
    const { refused } = await spendUntilRefused(() => http.get(`/v1/events/count?app_id=${webApp.id}`, { token: key }), [200]);
    expect(refused).toMatchObject({ status: 429, body: anError });
    expect(refused!.headers.get("retry-after")).toBe("1");
    // Another identity is unaffected.
    expect((await http.get("/v1/events/count", { token: owner.token })).status).toBe(200);
  });
});
