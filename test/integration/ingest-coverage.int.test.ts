import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { identity, ingestSettled } from "../support/app-users.ts";
import { createApp, projectWithApp } from "../support/catalog.ts";
import { anEvent, eventsWhen, ingest } from "../support/events.ts";
import { spendUntilRefused, type Client } from "../support/http.ts";
import { startWithOwner, stopTestService, testConfig, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * Ingest and query behaviour no other file pins down: a renamed country header, the environments
 * each platform may send, attribute-key and NUL rejections, the default page size, the `s` and `w`
 * units of `since`, the events list's token bucket per identity, and one app's user list with
 * search, billing_status and the cursor. The service reads the country from `X-Country`.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
type AppUnderTest = { app: any; clientKey: string };
let projectId: string;
let apple: AppUnderTest;
let android: AppUnderTest;
let web: AppUnderTest;
let backend: AppUnderTest;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const UNSTORABLE = "must not contain NUL characters or unpaired UTF-16 surrogates";

async function addApp(name: string, platform: string, bundleId: string | null): Promise<AppUnderTest> {
  const app = await createApp(http, owner.token, projectId, { name, platform, bundle_id: bundleId });
  return { app, clientKey: app.client_secret };
}

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner(await testConfig({ COUNTRY_HEADER: "X-Country" })));
  const created = await projectWithApp(http, owner.token, owner.teamId, { name: "iOS", platform: "apple", bundle_id: "com.example.coverage" });
  projectId = created.project.id;
  apple = { app: created.app, clientKey: created.clientKey };
  android = await addApp("Android", "android", "com.example.coverage.droid");
  web = await addApp("Web", "web", "coverage.example.com");
  backend = await addApp("Server", "backend", null);
});
afterAll(async () => stopTestService(service));

const post = (target: AppUnderTest, events: unknown[], headers: Record<string, string> = {}) =>
  ingest(http, target.clientKey, { bundle_id: target.app.bundle_id ?? undefined, events }, { headers });

/** Posts a batch that must be accepted whole. */
async function postAll(target: AppUnderTest, events: unknown[], headers: Record<string, string> = {}): Promise<void> {
  expect((await post(target, events, headers)).body).toEqual({ accepted: events.length, rejected: 0 });
}

/** The stored events of one session, newest first, once `count` of them are visible. */
const sessionEvents = (sessionId: string, count: number) =>
  eventsWhen(http, owner.token, `session_id=${sessionId}&data_mode=all&limit=200`, (events) => events.length >= count);

const messages = (events: { message: string }[]) => events.map((event) => event.message);

describe("COUNTRY_HEADER set to X-Country", () => {
  it("takes country_code from x-country and never from cf-ipcountry", async () => {
    const session_id = randomUUID();
    await postAll(apple, [anEvent({ session_id, message: "both" })], { "x-country": "se", "cf-ipcountry": "DE" });
    await postAll(apple, [anEvent({ session_id, message: "cf only" })], { "cf-ipcountry": "DE" });
    await postAll(apple, [anEvent({ session_id, message: "unknown" })], { "x-country": "XX", "cf-ipcountry": "DE" });
    await postAll(android, [anEvent({ session_id, message: "android", environment: "android" })], { "x-country": "NO" });
    const stored = await sessionEvents(session_id, 4);
    const countries = Object.fromEntries(stored.map((event) => [event.message, event.country_code]));
    expect(countries).toEqual({ both: "SE", "cf only": null, unknown: null, android: "NO" });
  });
});

describe("environment per platform", () => {
  it.each([
    ["android", () => android, ["ios", "watchos", "web", "backend"]],
    ["web", () => web, ["ios", "android", "backend"]],
    ["backend", () => backend, ["macos", "android", "web"]],
  ] as const)("rejects an environment outside the %s platform's set, keeping the valid event", async (platform, target, refused) => {
    const response = await post(target(), [anEvent({ environment: platform }), ...refused.map((environment) => anEvent({ environment }))]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      accepted: 1,
      rejected: refused.length,
      errors: refused.map((_, i) => ({ index: i + 1, message: `events[${i + 1}]: environment must be one of ${platform} for ${platform} apps` })),
    });
  });

  it("accepts and stores watchos from an apple app", async () => {
    const session_id = randomUUID();
    await postAll(apple, [anEvent({ session_id, environment: "watchos" })]);
    const [stored] = await sessionEvents(session_id, 1);
    expect(stored.environment).toBe("watchos");
    const filtered = await http.get(`/v1/events?session_id=${session_id}&environment=watchos`, { token: owner.token });
    expect(filtered.body.events.map((event: { id: string }) => event.id)).toEqual([stored.id]);
  });
});

describe("custom attribute keys and NUL characters", () => {
  it("rejects an empty key and a key over 128 characters, and keeps a 128-character key", async () => {
    const session_id = randomUUID();
    const longest = "k".repeat(128);
    const response = await post(apple, [
      anEvent({ session_id, custom_attributes: { "": "empty" } }),
      anEvent({ session_id, custom_attributes: { ["k".repeat(129)]: "long" } }),
      anEvent({ session_id, custom_attributes: { [longest]: "kept" } }),
    ]);
    const reason = "custom_attributes keys must be 1 to 128 characters";
    expect(response.body).toEqual({
      accepted: 1,
      rejected: 2,
      errors: [
        { index: 0, message: `events[0]: ${reason}` },
        { index: 1, message: `events[1]: ${reason}` },
      ],
    });
    const [stored] = await sessionEvents(session_id, 1);
    expect(stored.custom_attributes).toEqual({ [longest]: "kept" });
  });

  it("rejects NUL in the message, a string field, an attribute key or an attribute value", async () => {
    const session_id = randomUUID();
    const response = await post(apple, [
      anEvent({ session_id, message: "a\u0000b" }),
      anEvent({ session_id, user_id: "user\u0000" }),
      anEvent({ session_id, custom_attributes: { "k\u0000": "v" } }),
      anEvent({ session_id, custom_attributes: { note: "x\u0000y" } }),
      // The NUL lies past the 200 characters kept, so it is never stored and costs nothing.
      anEvent({ session_id, message: "truncated", custom_attributes: { tail: `${"y".repeat(200)}\u0000` } }),
    ]);
    expect(response.body).toEqual({
      accepted: 1,
      rejected: 4,
      errors: [
        { index: 0, message: `events[0]: message ${UNSTORABLE}` },
        { index: 1, message: `events[1]: user_id ${UNSTORABLE}` },
        { index: 2, message: `events[2]: custom_attributes keys ${UNSTORABLE}` },
        { index: 3, message: `events[3]: custom_attributes.note ${UNSTORABLE}` },
      ],
    });
    const stored = await sessionEvents(session_id, 1);
    expect(stored.map((event) => [event.message, event.custom_attributes])).toEqual([["truncated", { tail: "y".repeat(200) }]]);
  });
});

describe("default page size", () => {
  let pager: AppUnderTest;
  const tag = randomBytes(3).toString("hex");
  // 60 events of 60 users, one second apart; index 59 is the newest.
  const userIds = Array.from({ length: 60 }, (_, i) => `pager-${tag}-${String(i).padStart(2, "0")}`);
  const newestFirst = [...userIds].reverse();

  beforeAll(async () => {
    pager = await addApp("Pager", "apple", `com.example.pager.${tag}`);
    await postAll(pager, userIds.map((user_id, i) => anEvent({ user_id, message: user_id, timestamp: ago((60 - i) * 1_000) })));
    await eventsWhen(http, owner.token, `app_id=${pager.app.id}&limit=200`, (events) => events.length === 60);
    await ingestSettled(service);
  });

  it("answers 50 events from GET /v1/events without a limit, then the rest after the cursor", async () => {
    const first = await http.get(`/v1/events?app_id=${pager.app.id}`, { token: owner.token });
    expect(first.status).toBe(200);
    expect(messages(first.body.events)).toEqual(newestFirst.slice(0, 50));
    expect(first.body.has_more).toBe(true);
    expect(first.body.cursor).toBe(first.body.events[49].timestamp);
    const rest = await http.get(`/v1/events?app_id=${pager.app.id}&cursor=${encodeURIComponent(first.body.cursor)}`, { token: owner.token });
    expect(messages(rest.body.events)).toEqual(newestFirst.slice(50));
    expect(rest.body).toMatchObject({ has_more: false, cursor: null });
  });

  it("answers 50 users from GET /v1/apps/:id/users without a limit, then the rest after the cursor", async () => {
    const first = await http.get(`/v1/apps/${pager.app.id}/users`, { token: owner.token });
    expect(first.status).toBe(200);
    expect(first.body.users.map((user: any) => user.user_id)).toEqual(newestFirst.slice(0, 50));
    expect(first.body.has_more).toBe(true);
    expect(typeof first.body.cursor).toBe("string");
    const rest = await http.get(`/v1/apps/${pager.app.id}/users?cursor=${encodeURIComponent(first.body.cursor)}`, { token: owner.token });
    expect(rest.body.users.map((user: any) => user.user_id)).toEqual(newestFirst.slice(50));
    expect(rest.body).toMatchObject({ has_more: false, cursor: null });
  });
});

describe("relative since and until in seconds and weeks", () => {
  const session_id = randomUUID();
  const list = async (query: string) => {
    const response = await http.get(`/v1/events?session_id=${session_id}&limit=200&${query}`, { token: owner.token });
    expect(response.status).toBe(200);
    return messages(response.body.events);
  };

  beforeAll(async () => {
    // Ingest accepts timestamps up to 30 days old: 8 days is the oldest here.
    await postAll(apple, [
      anEvent({ session_id, message: "8 days", timestamp: ago(8 * DAY) }),
      anEvent({ session_id, message: "2 days", timestamp: ago(2 * DAY) }),
      anEvent({ session_id, message: "10 minutes", timestamp: ago(10 * MINUTE) }),
      anEvent({ session_id, message: "now" }),
    ]);
    await sessionEvents(session_id, 4);
  });

  it("reads w as weeks", async () => {
    expect(await list("since=1w")).toEqual(["now", "10 minutes", "2 days"]);
    expect(await list("since=2w")).toEqual(["now", "10 minutes", "2 days", "8 days"]);
    expect(await list("until=1w")).toEqual(["8 days"]);
  });

  it("reads s as seconds", async () => {
    expect(await list("since=30s")).toEqual(["now"]);
    expect(await list("since=900s")).toEqual(["now", "10 minutes"]);
    expect(await list("until=30s")).toEqual(["10 minutes", "2 days", "8 days"]);
  });
});

describe("rate limit on the events list", () => {
  const LIST = () => `/v1/events?app_id=${web.app.id}&limit=1`;
  const burst = async (token: string, size: number) => {
    const answers = await Promise.all(Array.from({ length: size }, () => http.get(LIST(), { token })));
    expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
    return answers;
  };
  const statuses = (answers: { status: number }[]) => answers.map((answer) => answer.status);
  const exhaust = async (token: string) => {
    const { refused } = await spendUntilRefused(() => http.get(LIST(), { token }), [200]);
    expect(refused?.status).toBe(429);
  };
  const agentKey = async (token: string, teamId: string) =>
    (await http.post("/v1/auth/keys", { name: `reader ${randomUUID()}`, key_type: "agent", team_id: teamId }, { token })).body.api_key.secret as string;

  it("serves 100 requests at once, then answers 429 with Retry-After: 1", async () => {
    const key = await agentKey(owner.token, owner.teamId);
    expect(statuses(await burst(key, 100))).toEqual(Array.from({ length: 100 }, () => 200));
    const refused = (await burst(key, 50)).find((answer) => answer.status === 429);
    expect(refused?.body).toEqual({ error: "rate limit exceeded; retry after 1 second" });
    expect(refused?.headers.get("retry-after")).toBe("1");
  });

  it("keeps a signed-in user's bucket apart from the buckets of the keys they created", async () => {
    const user = await signIn(http, service.outbox);
    const first = await agentKey(user.token, user.teamId);
    const second = await agentKey(user.token, user.teamId);

    // Bursts of 20: a drained bucket refills 10 a second, so even a 1-second stall leaves a 429.
    const allServed = Array.from({ length: 20 }, () => 200);
    await exhaust(first);
    const [asUser, asKey] = await Promise.all([burst(user.token, 20), burst(first, 20)]);
    expect(statuses(asUser)).toEqual(allServed);
    expect(statuses(asKey)).toContain(429);

    await exhaust(user.token);
    const [asUserAgain, asOtherKey] = await Promise.all([burst(user.token, 20), burst(second, 20)]);
    expect(statuses(asOtherKey)).toEqual(allServed);
    expect(statuses(asUserAgain)).toContain(429);
  });
});

describe("one app's users: search, billing_status and the cursor", () => {
  let shop: AppUnderTest;
  const tag = randomBytes(3).toString("hex");
  // Seen one minute apart, a first; the list is newest first: f, e, d, c, b, a.
  const u = {
    a: `buyer-${tag}-a`,
    b: `BUYER-${tag}-b`,
    c: `buyer-${tag}-c`,
    d: `viewer-${tag}-d`,
    e: `buyer-${tag}-e`,
    f: `viewer-${tag}-f`,
  };
  const paid = { sp_subscriber: "true", sp_period_type: "normal" };
  const trial = { sp_subscriber: "true", sp_period_type: "trial" };
  const lapsed = { sp_subscriber: "false", sp_period_type: "normal" };

  const list = async (query: string) => {
    const response = await http.get(`/v1/apps/${shop.app.id}/users?${query}`, { token: owner.token });
    expect(response.status).toBe(200);
    return response.body;
  };
  const ids = (body: any): string[] => body.users.map((user: any) => user.user_id);

  /** Follows the cursor from the first page; each entry is one page's user ids. */
  async function pages(query: string): Promise<string[][]> {
    const walked: string[][] = [];
    let cursor: string | null = null;
    do {
      const body: any = await list(`${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`);
      walked.push(ids(body));
      expect(body.has_more).toBe(body.cursor !== null);
      cursor = body.cursor;
    } while (cursor !== null && walked.length < 10);
    return walked;
  }

  beforeAll(async () => {
    shop = await addApp("Shop", "apple", `com.example.shop.${tag}`);
    const order = [u.a, u.b, u.c, u.d, u.e, u.f];
    await postAll(shop, order.map((user_id, i) => anEvent({ user_id, timestamp: ago((10 - i) * MINUTE) })));
    // Matches the search, but was seen only in another app of the project.
    await postAll(apple, [anEvent({ user_id: `buyer-${tag}-z` })]);
    await ingestSettled(service);
    for (const [userId, properties] of [[u.a, paid], [u.b, trial], [u.c, lapsed], [u.d, paid], [u.f, trial]] as const) {
      expect((await identity(http, shop.clientKey, "/properties", { user_id: userId, properties })).status).toBe(200);
    }
  });

  it("searches user ids as a case-insensitive substring within the app", async () => {
    expect(ids(await list(`search=buyer-${tag}`))).toEqual([u.e, u.c, u.b, u.a]);
    expect(ids(await list(`search=VIEWER-${tag}`))).toEqual([u.f, u.d]);
    expect(ids(await list(`search=${tag}-z`))).toEqual([]);
  });

  it("filters by billing_status, one value or a comma list, and with a search", async () => {
    expect(ids(await list("billing_status=paid"))).toEqual([u.d, u.a]);
    expect(ids(await list("billing_status=trial"))).toEqual([u.f, u.b]);
    expect(ids(await list("billing_status=free"))).toEqual([u.e, u.c]);
    expect(ids(await list("billing_status=paid,trial"))).toEqual([u.f, u.d, u.b, u.a]);
    expect(ids(await list(`billing_status=free&search=buyer-${tag}`))).toEqual([u.e, u.c]);
  });

  it("pages with the cursor, filters included, without losing or repeating a user", async () => {
    expect(await pages("limit=2")).toEqual([[u.f, u.e], [u.d, u.c], [u.b, u.a]]);
    expect(await pages(`limit=3&search=buyer-${tag}`)).toEqual([[u.e, u.c, u.b], [u.a]]);
    expect(await pages("limit=1&billing_status=trial")).toEqual([[u.f], [u.b]]);
  });
});
