import { randomBytes } from "node:crypto";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ClaimLookup } from "../../projections/app-users/claim-lookup.ts";
import { reassignUser } from "../../projections/_runtime/reassign.ts";
import { appUser, identity, ingestSettled, mobileProject, type AppWithKey } from "../support/app-users.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, ingest } from "../support/events.ts";
import { anError, client, type Client } from "../support/http.ts";
import { startTestService, startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * POST /v1/identity/claim and /properties through HTTP against real NATS and Postgres: every
 * claim rule of the spec (merge, rename, claimed_from, neither, repeat, conflict), the event
 * count, property limits and deletes, and claims and property merges raced in parallel.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let projectId: string;
type AppUnderTest = AppWithKey & { environment: string };
let apple: AppUnderTest;
let android: AppUnderTest;

const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const anonymousId = () => `svc_anon_${randomBytes(8).toString("hex")}`;
const knownId = (label = "user") => `${label}-${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  const apps = await mobileProject(http, owner.token, owner.teamId, { ios: "com.example.identity", android: "com.example.identity.droid" });
  projectId = apps.projectId;
  apple = { ...apps.apple, environment: "ios" };
  android = { ...apps.android, environment: "android" };
});
afterAll(async () => stopTestService(service));

async function post(target: AppUnderTest, userId: string, count: number, fields: Record<string, unknown> = {}) {
  const events = Array.from({ length: count }, () => anEvent({ user_id: userId, environment: target.environment, ...fields }));
  const response = await ingest(http, target.clientKey, { bundle_id: target.app.bundle_id, events });
  expect(response).toMatchObject({ status: 200, body: { accepted: count, rejected: 0 } });
}

const claim = (anonymous: string, userId: string, key = apple.clientKey) => identity(http, key, "/claim", { anonymous_id: anonymous, user_id: userId });
const setProperties = (userId: string, properties: unknown, key = apple.clientKey) => identity(http, key, "/properties", { user_id: userId, properties });
const user = async (userId: string) => {
  await ingestSettled(service);
  return appUser(http, owner.token, projectId, userId);
};

/** Events the read model holds for a user in the project's apps. */
const storedEvents = (userId: string) =>
  service.pool.oneFirst(sql.type(z.object({ count: z.number() }))`
    select count(*)::bigint as count from events where app_id = any(${sql.array([apple.app.id, android.app.id], "uuid")}) and user_id = ${userId}`);

describe("claim rules", () => {
  it("merges the anonymous record into an existing identified one and counts its events across apps", async () => {
    const anonymous = anonymousId();
    const known = knownId();
    await post(apple, anonymous, 3, { timestamp: ago(40 * MINUTE), locale: "sv_SE" });
    await post(android, anonymous, 2, { timestamp: ago(30 * MINUTE) });
    await post(apple, known, 1, { timestamp: ago(5 * MINUTE), app_version: "9.0" });
    await ingestSettled(service);
    expect((await setProperties(anonymous, { plan: "trial", color: "red" })).status).toBe(200);
    expect((await setProperties(known, { plan: "pro" })).status).toBe(200);

    const response = await claim(anonymous, known);
    expect(response).toMatchObject({ status: 200, body: { claimed: true, events_reassigned_count: 5 } });

    const merged = await user(known);
    expect(merged).toMatchObject({
      user_id: known,
      is_anonymous: false,
      claimed_from: [anonymous],
      last_app_version: "9.0",
      last_locale: "sv_SE",
      properties: { plan: "pro", color: "red" },
    });
    expect(Date.parse(merged.first_seen_at)).toBeLessThan(Date.now() - 39 * MINUTE);
    expect(merged.apps.map((link: any) => link.app_name).sort()).toEqual(["Android", "iOS"]);
    expect(await user(anonymous)).toBeUndefined();
  });

  it("renames an anonymous record when the identified user has none", async () => {
    const anonymous = anonymousId();
    const known = knownId();
    await post(android, anonymous, 2);
    const before = await user(anonymous);
    expect(await claim(anonymous, known)).toMatchObject({ status: 200, body: { claimed: true, events_reassigned_count: 2 } });
    const renamed = await user(known);
    expect(renamed).toMatchObject({ id: before.id, user_id: known, is_anonymous: false, claimed_from: [anonymous], first_seen_at: before.first_seen_at });
    expect(await user(anonymous)).toBeUndefined();
  });

  it("appends to claimed_from when only the identified user exists", async () => {
    const known = knownId();
    await post(apple, known, 1);
    const first = anonymousId();
    const second = anonymousId();
    expect(await claim(first, known)).toMatchObject({ status: 200, body: { events_reassigned_count: 0 } });
    expect(await claim(second, known)).toMatchObject({ status: 200, body: { events_reassigned_count: 0 } });
    expect(await user(known)).toMatchObject({ claimed_from: [first, second], is_anonymous: false });
  });

  it("creates an identified record when neither exists (claim before any event)", async () => {
    const anonymous = anonymousId();
    const known = knownId();
    expect(await claim(anonymous, known)).toMatchObject({ status: 200, body: { claimed: true, events_reassigned_count: 0 } });
    const created = await user(known);
    expect(created).toMatchObject({ user_id: known, is_anonymous: false, claimed_from: [anonymous], properties: {} });
    expect(created.apps.map((link: any) => link.app_id)).toEqual([apple.app.id]);
    // Events sent afterwards under the anonymous id belong to the claiming user.
    await post(android, anonymous, 1, { app_version: "4.2" });
    expect(await user(known)).toMatchObject({ last_app_version: "4.2" });
    expect(await user(anonymous)).toBeUndefined();
  });

  it("answers a repeated claim with 200 and count 0", async () => {
    const anonymous = anonymousId();
    const known = knownId();
    await post(apple, anonymous, 4);
    await ingestSettled(service);
    expect(await claim(anonymous, known)).toMatchObject({ status: 200, body: { events_reassigned_count: 4 } });
    expect(await claim(anonymous, known)).toMatchObject({ status: 200, body: { claimed: true, events_reassigned_count: 0 } });
    expect(await user(known)).toMatchObject({ claimed_from: [anonymous] });
  });

  it("refuses a claim of an anonymous id another user already claimed", async () => {
    const anonymous = anonymousId();
    expect((await claim(anonymous, knownId())).status).toBe(200);
    expect(await claim(anonymous, knownId())).toMatchObject({ status: 409, body: anError });
  });

  it("scopes claims to the key's project", async () => {
    const other = await projectWithApp(http, owner.token, owner.teamId, { platform: "apple", bundle_id: "com.example.elsewhere" });
    const anonymous = anonymousId();
    await post(apple, anonymous, 1);
    await ingestSettled(service);
    expect(await claim(anonymous, knownId(), other.clientKey)).toMatchObject({ status: 200, body: { events_reassigned_count: 0 } });
    expect(await user(anonymous)).toMatchObject({ is_anonymous: true });
  });

  it("validates the body", async () => {
    for (const body of [
      {},
      { anonymous_id: "anon_1", user_id: "u" },
      { anonymous_id: anonymousId(), user_id: anonymousId() },
      { anonymous_id: anonymousId(), user_id: "" },
      { anonymous_id: anonymousId(), user_id: 42 },
      { anonymous_id: anonymousId(), user_id: "x".repeat(256) },
      { anonymous_id: anonymousId(), user_id: "nul\u0000byte" },
      { anonymous_id: `${anonymousId()}\ud800`, user_id: knownId() },
      [],
      "text",
    ]) {
      expect(await identity(http, apple.clientKey, "/claim", body), JSON.stringify(body)).toMatchObject({ status: 400, body: anError });
    }
  });
});

describe("who may call", () => {
  it("takes a client key with the route's permission only", async () => {
    const keyWith = async (permissions: string[]) =>
      (await http.post("/v1/auth/keys", { name: "sdk", key_type: "client", app_id: apple.app.id, permissions }, { token: owner.token })).body.api_key.secret as string;
    const usersOnly = await keyWith(["users:write"]);
    const eventsOnly = await keyWith(["events:write"]);
    const agent = (await http.post("/v1/auth/keys", { name: "agent", key_type: "agent", team_id: owner.teamId }, { token: owner.token })).body.api_key.secret;
    const body = { anonymous_id: anonymousId(), user_id: knownId() };
    expect(await http.post("/v1/identity/claim", body)).toMatchObject({ status: 401, body: anError });
    expect(await http.post("/v1/identity/claim", body, { token: "svc_client_nope" })).toMatchObject({ status: 401, body: anError });
    expect(await http.post("/v1/identity/claim", body, { token: owner.token })).toMatchObject({ status: 403, body: anError });
    expect(await http.post("/v1/identity/claim", body, { token: agent })).toMatchObject({ status: 403, body: anError });
    expect(await http.post("/v1/identity/claim", body, { token: usersOnly })).toMatchObject({ status: 403, body: anError });
    expect(await http.post("/v1/identity/properties", { user_id: "u", properties: {} }, { token: eventsOnly })).toMatchObject({ status: 403, body: anError });
    expect((await http.post("/v1/identity/claim", body, { token: eventsOnly })).status).toBe(200);
    expect((await http.post("/v1/identity/properties", { user_id: "u", properties: {} }, { token: usersOnly })).status).toBe(200);
  });
});

describe("properties", () => {
  it("merges, deletes with an empty string and answers the full object", async () => {
    const known = knownId();
    expect(await setProperties(known, { a: "1", b: "2" })).toMatchObject({ status: 200, body: { updated: true, properties: { a: "1", b: "2" } } });
    expect(await setProperties(known, { b: "", c: "3" })).toMatchObject({ status: 200, body: { properties: { a: "1", c: "3" } } });
    expect(await setProperties(known, { missing: "" })).toMatchObject({ status: 200, body: { properties: { a: "1", c: "3" } } });
    expect(await user(known)).toMatchObject({ properties: { a: "1", c: "3" } });
  });

  it("accepts anonymous ids and follows a claimed one to its user", async () => {
    const anonymous = anonymousId();
    const known = knownId();
    expect((await setProperties(anonymous, { source: "ad" })).status).toBe(200);
    expect(await user(anonymous)).toMatchObject({ is_anonymous: true, properties: { source: "ad" } });
    expect((await claim(anonymous, known)).status).toBe(200);
    expect(await setProperties(anonymous, { later: "yes" })).toMatchObject({ status: 200, body: { properties: { source: "ad", later: "yes" } } });
    expect(await user(known)).toMatchObject({ properties: { source: "ad", later: "yes" } });
    expect(await user(anonymous)).toBeUndefined();
  });

  it("enforces the key, value and count limits", async () => {
    const known = knownId();
    const bad = [
      { ["k".repeat(51)]: "v" },
      { "": "v" },
      { key: "v".repeat(201) },
      { key: "💥".repeat(201) },
      { key: 1 },
      { key: null },
      { key: { nested: "x" } },
      { key: "nul\u0000" },
      { ["\ud800"]: "lone surrogate" },
      ["a"],
      "text",
      null,
    ];
    for (const properties of bad) {
      expect(await setProperties(known, properties), JSON.stringify(properties)).toMatchObject({ status: 400, body: anError });
    }
    expect(await identity(http, apple.clientKey, "/properties", { user_id: known })).toMatchObject({ status: 400, body: anError });
    expect(await identity(http, apple.clientKey, "/properties", { properties: {} })).toMatchObject({ status: 400, body: anError });
    expect((await setProperties(known, { ["k".repeat(50)]: "v".repeat(200) })).status).toBe(200);
    // Characters as a user counts them: an emoji is one, not two UTF-16 units.
    expect((await setProperties(known, { ["🔑".repeat(50)]: "💥".repeat(200) })).status).toBe(200);
    await setProperties(known, { ["🔑".repeat(50)]: "" });
    // A user id counts its characters as ingest does: 200 emoji are 400 UTF-16 units but fit 255.
    expect((await identity(http, apple.clientKey, "/properties", { user_id: "🙂".repeat(200), properties: { a: "b" } })).status).toBe(200);

    const fifty = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`p${i}`, String(i)]));
    expect(await setProperties(known, fifty)).toMatchObject({ status: 200 });
    expect(await setProperties(known, { one_more: "x" })).toMatchObject({ status: 400, body: anError });
    // Deleting and adding in one request counts after the merge.
    const swapped = await setProperties(known, { p0: "", one_more: "x" });
    expect(swapped.status).toBe(200);
    expect(Object.keys(swapped.body.properties)).toHaveLength(50);
  });
});

describe("races", () => {
  it("serializes parallel property merges of one user without losing a key", async () => {
    const known = knownId();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => setProperties(known, { [`key${i}`]: `value${i}` })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const stored = (await user(known)).properties;
    expect(Object.keys(stored).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `key${i}`).sort());
  });

  it("keeps the 50-property limit under parallel merges", async () => {
    const known = knownId();
    const forty = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`base${i}`, "x"]));
    expect((await setProperties(known, forty)).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, writer) => setProperties(known, Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`w${writer}_${i}`, "y"])))),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 200, 400, 400, 400]);
    expect(Object.keys((await user(known)).properties)).toHaveLength(48);
  });

  it("lets exactly one of parallel claims of one anonymous id by different users win", async () => {
    const anonymous = anonymousId();
    await post(apple, anonymous, 3);
    await ingestSettled(service);
    const claimers = Array.from({ length: 6 }, () => knownId("racer"));
    const answers = await Promise.all(claimers.map((known) => claim(anonymous, known)));
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.body.events_reassigned_count).toBe(3);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(5);
    const winner = claimers[answers.findIndex((answer) => answer.status === 200)]!;
    expect(await user(winner)).toMatchObject({ claimed_from: [anonymous] });
    for (const loser of claimers.filter((known) => known !== winner)) expect(await user(loser)).toBeUndefined();
  });

  it("counts the events once when the same claim is sent in parallel", async () => {
    const anonymous = anonymousId();
    const known = knownId();
    await post(android, anonymous, 6);
    await ingestSettled(service);
    const answers = await Promise.all(Array.from({ length: 8 }, () => claim(anonymous, known)));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const counts = answers.map((answer) => answer.body.events_reassigned_count as number);
    expect(counts.every((count) => count === 0 || count === 6)).toBe(true);
    expect(counts.filter((count) => count === 6)).toHaveLength(1);
    expect(await user(known)).toMatchObject({ claimed_from: [anonymous] });
  });

  it("loses no property written while the user is being claimed", async () => {
    const anonymous = anonymousId();
    const known = knownId();
    await post(apple, anonymous, 1);
    await post(apple, known, 1);
    await ingestSettled(service);
    const writes = [
      ...Array.from({ length: 6 }, (_, i) => setProperties(anonymous, { [`anon${i}`]: "a" })),
      ...Array.from({ length: 6 }, (_, i) => setProperties(known, { [`known${i}`]: "k" })),
    ];
    const [claimed, ...answers] = await Promise.all([claim(anonymous, known), ...writes]);
    expect(claimed!.status).toBe(200);
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
    const stored = (await user(known)).properties;
    expect(Object.keys(stored).sort()).toEqual([...Array.from({ length: 6 }, (_, i) => `anon${i}`), ...Array.from({ length: 6 }, (_, i) => `known${i}`)].sort());
    // Every answer showed the user's properties right after its own merge.
    for (const answer of answers) expect(Object.keys(answer.body.properties).length).toBeGreaterThanOrEqual(1);
    expect(await user(anonymous)).toBeUndefined();
  });

  it("stays race-safe across two API instances, where only optimistic concurrency orders writers", async () => {
    const second = await startTestService({ ...service.config, port: 0 }, ["api"]);
    const other = client(second.baseUrl);
    const via = (i: number) => (i % 2 === 0 ? http : other);
    try {
      const known = knownId();
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) => identity(via(i), apple.clientKey, "/properties", { user_id: known, properties: { [`k${i}`]: "v" } })),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(16).fill(200));
      expect(Object.keys((await user(known)).properties)).toHaveLength(16);

      const full = knownId();
      expect((await setProperties(full, Object.fromEntries(Array.from({ length: 44 }, (_, i) => [`base${i}`, "x"])))).status).toBe(200);
      const limited = await Promise.all(
        Array.from({ length: 4 }, (_, writer) =>
          identity(via(writer), apple.clientKey, "/properties", { user_id: full, properties: { [`w${writer}a`]: "y", [`w${writer}b`]: "y", [`w${writer}c`]: "y" } }),
        ),
      );
      expect(limited.map((answer) => answer.status).sort()).toEqual([200, 200, 400, 400]);
      expect(Object.keys((await user(full)).properties)).toHaveLength(50);

      const anonymous = anonymousId();
      const claims = await Promise.all(Array.from({ length: 4 }, (_, i) => identity(via(i), apple.clientKey, "/claim", { anonymous_id: anonymous, user_id: `racer-${i}-${known}` })));
      expect(claims.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409]);
    } finally {
      await second.close();
    }
  });
});

describe("events of claimed users", () => {
  const eventsOf = async (userId: string) => {
    await ingestSettled(service);
    const response = await http.get(`/v1/events?project_id=${projectId}&user_id=${encodeURIComponent(userId)}&data_mode=all&limit=200`, { token: owner.token });
    expect(response.status).toBe(200);
    return response.body.events as any[];
  };

  it("moves the anonymous id's events in every app of the project to the claiming user", async () => {
    const anonymous = anonymousId();
    const known = knownId();
    await post(apple, anonymous, 2);
    await post(android, anonymous, 3);
    await post(apple, known, 1);
    expect(await claim(anonymous, known)).toMatchObject({ status: 200, body: { events_reassigned_count: 5 } });
    expect(await eventsOf(anonymous)).toHaveLength(0);
    const moved = await eventsOf(known);
    expect(moved).toHaveLength(6);
    expect(new Set(moved.map((event) => event.app_id))).toEqual(new Set([apple.app.id, android.app.id]));
  });

  it("re-attributes events sent under an already-claimed anonymous id (ingest rule 6)", async () => {
    const anonymous = anonymousId();
    const known = knownId();
    expect((await claim(anonymous, known)).status).toBe(200);
    await post(android, anonymous, 2, { app_version: "7.0" });
    expect(await eventsOf(anonymous)).toHaveLength(0);
    expect(await eventsOf(known)).toHaveLength(2);
    expect(await user(known)).toMatchObject({ last_app_version: "7.0", claimed_from: [anonymous] });
  });
});

describe("integration points for the event read models and the ingest route", () => {
  it("reassignUser moves every event of the anonymous id in the project's apps, as many as the claim counted", async () => {
    const anonymous = anonymousId();
    const known = knownId();
    await post(apple, anonymous, 3);
    await post(android, anonymous, 2);
    await ingestSettled(service);
    const claimed = await claim(anonymous, known);
    expect(claimed).toMatchObject({ status: 200, body: { events_reassigned_count: 5 } });
    await ingestSettled(service);
    // Applied the way the events projector applies a UserClaimed fact (a no-op if it already did).
    const moved = await service.pool.transaction((tx) =>
      reassignUser(tx, "events", { app_ids: [apple.app.id, android.app.id], anonymous_id: anonymous, user_id: known }),
    );
    expect([0, 5]).toContain(moved);
    expect(await storedEvents(anonymous)).toBe(0);
    expect(await storedEvents(known)).toBe(5);
  });

  it("reattributeClaimed gives claimed anonymous ids to their users and leaves every other id alone", async () => {
    const claimedId = anonymousId();
    const known = knownId();
    const unclaimed = anonymousId();
    expect((await claim(claimedId, known)).status).toBe(200);
    const events = [{ user_id: claimedId }, { user_id: unclaimed }, { user_id: "plain-user" }, { user_id: null }, { user_id: claimedId }];
    const claims = new ClaimLookup(service.pool);
    await claims.reattribute(projectId, events);
    expect(events.map((event) => event.user_id)).toEqual([known, unclaimed, "plain-user", null, known]);
    expect(await claims.claimedUserOf(projectId, claimedId)).toBe(known);
    expect(await claims.claimedUserOf(projectId, unclaimed)).toBeNull();
    const otherProject = (await projectWithApp(http, owner.token, owner.teamId, { platform: "apple", bundle_id: "com.example.other" })).project.id;
    expect(await claims.claimedUserOf(otherProject, claimedId)).toBeNull();
  });
});
