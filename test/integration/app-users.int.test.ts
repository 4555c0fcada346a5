import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectionNamed } from "../../projections/registry.ts";
import { replay } from "../../projections/_runtime/replay.ts";
import { appUser, identity, ingestSettled, mobileProject, type AppWithKey } from "../support/app-users.ts";
import { createApp, projectWithApp } from "../support/catalog.ts";
import { anEvent, ingest } from "../support/events.ts";
import { anError, type Client } from "../support/http.ts";
import { replayDeps } from "../support/replay.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * The app_users read model through HTTP: what ingest batches make of a user (first/last seen, the
 * latest values by event time even when batches arrive out of order, country and is_dev from
 * client platforms only, app links), the two listing routes with every filter and the cursor,
 * who may read them, and a replay that rebuilds identical rows.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let agentKey: string;
type AppUnderTest = AppWithKey;
let projectId: string;
let apple: AppUnderTest;
let android: AppUnderTest;
let backend: AppUnderTest;

const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const uid = (label: string) => `${label}-${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  ({ projectId, apple, android } = await mobileProject(http, owner.token, owner.teamId, { ios: "com.example.users", android: "com.example.droid" }));
  const server = await createApp(http, owner.token, projectId, { name: "Server", platform: "backend", bundle_id: null });
  backend = { app: server, clientKey: server.client_secret };
  agentKey = (await http.post("/v1/auth/keys", { name: "reader", key_type: "agent", team_id: owner.teamId }, { token: owner.token })).body.api_key.secret;
});
afterAll(async () => stopTestService(service));

const post = async (target: AppUnderTest, events: unknown[], headers: Record<string, string> = {}) => {
  const environment = target === apple ? "ios" : target === android ? "android" : "backend";
  const response = await ingest(
    http,
    target.clientKey,
    { bundle_id: target.app.bundle_id ?? undefined, events: events.map((event) => ({ ...(event as object), environment })) },
    { headers },
  );
  expect(response).toMatchObject({ status: 200, body: { rejected: 0 } });
};

const user = async (userId: string) => {
  await ingestSettled(service);
  return appUser(http, owner.token, projectId, userId);
};

describe("what ingest makes of a user", () => {
  it("keeps first and last seen, the latest values by event time, the country of the latest request and one link per app", async () => {
    const id = uid("alice");
    await post(
      apple,
      [
        anEvent({ user_id: id, timestamp: ago(30 * MINUTE), app_version: "1.0", sdk_name: "swift", sdk_version: "1.0.0", locale: "en_US" }),
        anEvent({ user_id: id, timestamp: ago(20 * MINUTE), app_version: "1.1", sdk_name: "swift", sdk_version: "1.1.0", locale: "de_DE", custom_attributes: { preferred_language: "de" } }),
        anEvent({ user_id: id, timestamp: ago(10 * MINUTE) }),
      ],
      { "cf-ipcountry": "DE" },
    );
    await post(android, [anEvent({ user_id: id, timestamp: ago(25 * MINUTE), app_version: "0.9", sdk_name: "kotlin", sdk_version: "2.0" })], { "cf-ipcountry": "FR" });

    const found = await user(id);
    expect(found).toMatchObject({
      project_id: projectId,
      user_id: id,
      is_anonymous: false,
      first_seen_at: expect.any(String),
      last_app_version: "1.1",
      last_sdk_name: "swift",
      last_sdk_version: "1.1.0",
      last_locale: "de_DE",
      last_preferred_language: "de",
      last_country_code: "FR",
      claimed_from: null,
      properties: {},
      is_dev: false,
    });
    expect(found.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(found.last_seen_at) - Date.parse(found.first_seen_at)).toBeGreaterThan(19 * MINUTE);
    expect(found.apps.map((link: any) => link.app_name).sort()).toEqual(["Android", "iOS"]);
    const iosLink = found.apps.find((link: any) => link.app_id === apple.app.id);
    expect(Date.parse(iosLink.last_seen_at) - Date.parse(iosLink.first_seen_at)).toBeGreaterThan(19 * MINUTE);
  });

  it("keeps last_* event values when older events arrive later, while country and is_dev follow the latest request", async () => {
    const id = uid("late");
    await post(apple, [anEvent({ user_id: id, timestamp: ago(5 * MINUTE), app_version: "2.0", sdk_name: "swift", sdk_version: "2.0", locale: "fr_FR", is_dev: true })], {
      "cf-ipcountry": "FR",
    });
    await ingestSettled(service);
    await post(apple, [anEvent({ user_id: id, timestamp: ago(50 * MINUTE), app_version: "1.0", sdk_name: "swift", sdk_version: "1.0", locale: "it_IT", is_dev: false })], {
      "cf-ipcountry": "IT",
    });
    const found = await user(id);
    expect(found).toMatchObject({ last_app_version: "2.0", last_sdk_version: "2.0", last_locale: "fr_FR", last_country_code: "IT", is_dev: false });
    expect(Date.parse(found.first_seen_at)).toBeLessThan(Date.now() - 49 * MINUTE);
    expect(Date.parse(found.last_seen_at)).toBeGreaterThan(Date.now() - 6 * MINUTE);
  });

  it("takes app_version from the latest event that has one", async () => {
    const id = uid("version");
    await post(apple, [anEvent({ user_id: id, timestamp: ago(3 * MINUTE), app_version: "3.1" }), anEvent({ user_id: id, timestamp: ago(MINUTE) })]);
    expect(await user(id)).toMatchObject({ last_app_version: "3.1" });
  });

  it("sets country and is_dev from client platforms only", async () => {
    const serverOnly = uid("server");
    await post(backend, [anEvent({ user_id: serverOnly, is_dev: true, timestamp: ago(MINUTE) })], { "cf-ipcountry": "US" });
    expect(await user(serverOnly)).toMatchObject({ last_country_code: null, is_dev: false });

    const mixed = uid("mixed");
    await post(apple, [anEvent({ user_id: mixed, is_dev: true, timestamp: ago(10 * MINUTE) })], { "cf-ipcountry": "JP" });
    await post(backend, [anEvent({ user_id: mixed, is_dev: false, timestamp: ago(MINUTE) })], { "cf-ipcountry": "US" });
    const found = await user(mixed);
    expect(found).toMatchObject({ last_country_code: "JP", is_dev: true });
    expect(found.apps.map((link: any) => link.app_name).sort()).toEqual(["Server", "iOS"]);
  });

  it("keeps the last recognised country when a later request has none", async () => {
    const id = uid("traveller");
    await post(apple, [anEvent({ user_id: id, timestamp: ago(10 * MINUTE) })], { "cf-ipcountry": "NL" });
    await post(apple, [anEvent({ user_id: id, timestamp: ago(MINUTE) })], { "cf-ipcountry": "XX" });
    expect(await user(id)).toMatchObject({ last_country_code: "NL" });
  });

  it("marks anonymous ids and ignores events without a user", async () => {
    const anonymous = `svc_anon_${randomBytes(6).toString("hex")}`;
    await post(apple, [anEvent({ user_id: anonymous }), anEvent({})]);
    expect(await user(anonymous)).toMatchObject({ is_anonymous: true });
  });
});

describe("listing", () => {
  let listProject: string;
  let listApp: AppUnderTest;
  let otherApp: AppUnderTest;
  const ids: string[] = [];
  const tag = randomBytes(3).toString("hex");

  beforeAll(async () => {
    const created = await projectWithApp(http, owner.token, owner.teamId, { name: "List", platform: "apple", bundle_id: "com.example.list" });
    listProject = created.project.id;
    listApp = created;
    const second = await createApp(http, owner.token, listProject, { name: "Second", platform: "apple", bundle_id: "com.example.second" });
    otherApp = { app: second, clientKey: second.client_secret };
    // 12 users seen one minute apart; every third is anonymous, every fourth in development.
    const events = [];
    for (let i = 0; i < 12; i += 1) {
      const id = i % 3 === 0 ? `svc_anon_${tag}_${i}` : `User_${tag}_${i}`;
      ids.push(id);
      events.push(anEvent({ user_id: id, environment: "ios", timestamp: ago((20 - i) * MINUTE), is_dev: i % 4 === 0 }));
    }
    expect((await ingest(http, listApp.clientKey, { bundle_id: "com.example.list", events })).status).toBe(200);
    expect((await ingest(http, otherApp.clientKey, { bundle_id: "com.example.second", events: [anEvent({ user_id: ids[1], environment: "ios" })] })).status).toBe(200);
    await ingestSettled(service);
    const set = (userId: string, properties: Record<string, string>) => identity(http, listApp.clientKey, "/properties", { user_id: userId, properties });
    expect((await set(ids[1]!, { sp_subscriber: "true", sp_period_type: "normal" })).status).toBe(200);
    expect((await set(ids[2]!, { sp_subscriber: "true", sp_period_type: "TRIAL" })).status).toBe(200);
    expect((await set(ids[4]!, { sp_subscriber: "false", sp_period_type: "normal" })).status).toBe(200);
  });

  const list = async (query: string, token = owner.token) => {
    const response = await http.get(`/v1/app-users?project_id=${listProject}&${query}`, { token });
    expect(response.status).toBe(200);
    return response.body;
  };
  const userIds = (body: any) => body.users.map((u: any) => u.user_id);

  it("orders by last_seen_at descending, production users by default", async () => {
    const body = await list("");
    const production = ids.filter((_, i) => i % 4 !== 0).reverse();
    // ids[1] was seen last (the second app's event carries the server time).
    expect(userIds(body)).toEqual([ids[1], ...production.filter((id) => id !== ids[1])]);
    expect(body).toMatchObject({ cursor: null, has_more: false });
    expect(body.users[0]).toHaveProperty("last_locale");
    expect(body.users[0]).toHaveProperty("last_preferred_language");
  });

  it("filters by data_mode", async () => {
    expect(userIds(await list("data_mode=development")).sort()).toEqual(ids.filter((_, i) => i % 4 === 0).sort());
    expect(userIds(await list("data_mode=all"))).toHaveLength(12);
  });

  it("searches user ids as a case-insensitive substring, wildcards taken literally", async () => {
    expect(userIds(await list(`data_mode=all&search=user_${tag}_1`)).sort()).toEqual([ids[1], ids[10], ids[11]].sort());
    expect(userIds(await list(`data_mode=all&search=${tag.toUpperCase()}`))).toHaveLength(12);
    expect(userIds(await list(`data_mode=all&search=${encodeURIComponent("%")}`))).toEqual([]);
    const nul = await http.get(`/v1/app-users?project_id=${projectId}&search=a%00`, { token: owner.token });
    expect(nul).toMatchObject({ status: 400, body: { error: "query.search: must not contain NUL characters or unpaired UTF-16 surrogates" } });
  });

  it("filters by is_anonymous", async () => {
    expect(userIds(await list("data_mode=all&is_anonymous=true")).sort()).toEqual(ids.filter((_, i) => i % 3 === 0).sort());
    expect(userIds(await list("data_mode=all&is_anonymous=false"))).toHaveLength(8);
  });

  it("derives billing_status from the sp_* properties", async () => {
    expect(userIds(await list("data_mode=all&billing_status=paid"))).toEqual([ids[1]]);
    expect(userIds(await list("data_mode=all&billing_status=trial"))).toEqual([ids[2]]);
    expect(userIds(await list("data_mode=all&billing_status=paid,trial")).sort()).toEqual([ids[1], ids[2]].sort());
    expect(userIds(await list("data_mode=all&billing_status=free"))).toHaveLength(10);
  });

  it("bounds last_seen_at with since and until (relative or ISO)", async () => {
    expect(userIds(await list(`data_mode=all&since=${encodeURIComponent(ago(10.5 * MINUTE))}`)).sort()).toEqual([ids[1], ids[10], ids[11]].sort());
    expect(userIds(await list(`data_mode=all&until=${encodeURIComponent(ago(14.5 * MINUTE))}`)).sort()).toEqual(ids.slice(0, 6).filter((id) => id !== ids[1]).sort());
    expect(userIds(await list("data_mode=all&since=1h"))).toHaveLength(12);
  });

  it("pages with the cursor without losing or repeating a user", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body: any = await list(`data_mode=all&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      seen.push(...userIds(body));
      expect(body.has_more).toBe(body.cursor !== null);
      cursor = body.cursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(userIds(await list("data_mode=all&limit=200")));
  });

  it("lists one app's users without the cross-app locale fields", async () => {
    const response = await http.get(`/v1/apps/${otherApp.app.id}/users?data_mode=all`, { token: owner.token });
    expect(response).toMatchObject({ status: 200, body: { cursor: null, has_more: false } });
    expect(userIds(response.body)).toEqual([ids[1]]);
    const only = response.body.users[0];
    expect(only).not.toHaveProperty("last_locale");
    expect(only).not.toHaveProperty("last_preferred_language");
    expect(only.apps.map((link: any) => link.app_name).sort()).toEqual(["List", "Second"]);
    expect(only.properties).toEqual({ sp_period_type: "normal", sp_subscriber: "true" });
    const all = await http.get(`/v1/apps/${listApp.app.id}/users?data_mode=all&is_anonymous=true`, { token: owner.token });
    expect(userIds(all.body)).toHaveLength(4);
  });

  it("narrows the cross-app list by app_id and team_id", async () => {
    expect(userIds(await list(`data_mode=all&app_id=${otherApp.app.id}`))).toEqual([ids[1]]);
    const teamWide = await http.get(`/v1/app-users?team_id=${owner.teamId}&data_mode=all&search=${tag}`, { token: owner.token });
    expect(userIds(teamWide.body)).toHaveLength(12);
  });

  it("rejects malformed filters with 400", async () => {
    for (const query of ["is_anonymous=yes", "billing_status=gold", "data_mode=dev", "limit=0", "limit=1.5", "cursor=nope", "since=yesterday", "since=1h&until=2h", "app_id=x"]) {
      const response = await http.get(`/v1/app-users?${query}`, { token: owner.token });
      expect(response, query).toMatchObject({ status: 400, body: anError });
    }
    expect(await http.get(`/v1/apps/${listApp.app.id}/users?is_anonymous=1`, { token: owner.token })).toMatchObject({ status: 400, body: anError });
    expect(await http.get(`/v1/apps/not-a-uuid/users`, { token: owner.token })).toMatchObject({ status: 400, body: anError });
  });

  it("answers by the apps:read rule: agent keys and members read, others cannot", async () => {
    expect(userIds((await http.get(`/v1/apps/${otherApp.app.id}/users?data_mode=all`, { token: agentKey })).body)).toEqual([ids[1]]);
    expect(userIds(await list("data_mode=all", agentKey))).toHaveLength(12);
    expect(await http.get(`/v1/app-users`)).toMatchObject({ status: 401, body: anError });
    expect(await http.get(`/v1/app-users`, { token: listApp.clientKey })).toMatchObject({ status: 403, body: anError });
    expect(await http.get(`/v1/apps/${listApp.app.id}/users`, { token: listApp.clientKey })).toMatchObject({ status: 403, body: anError });
    const outsider = await signIn(http, service.outbox);
    expect(await http.get(`/v1/apps/${listApp.app.id}/users`, { token: outsider.token })).toMatchObject({ status: 404, body: anError });
    const foreign = await http.get(`/v1/app-users?project_id=${listProject}&data_mode=all`, { token: outsider.token });
    expect(foreign).toMatchObject({ status: 200, body: { users: [], has_more: false } });
  });
});

describe("replay", () => {
  it("rebuilds identical app_users rows from the INGEST stream", async () => {
    const anonymous = `svc_anon_${randomBytes(6).toString("hex")}`;
    const known = uid("replayed");
    await post(apple, [anEvent({ user_id: anonymous, custom_attributes: { supported_languages: "en,de" } })], { "cf-ipcountry": "AT" });
    await post(apple, [anEvent({ user_id: known, timestamp: ago(MINUTE) })]);
    await ingestSettled(service);
    expect((await identity(http, apple.clientKey, "/properties", { user_id: anonymous, properties: { plan: "a" } })).status).toBe(200);
    expect((await identity(http, apple.clientKey, "/claim", { anonymous_id: anonymous, user_id: known })).status).toBe(200);
    expect((await identity(http, apple.clientKey, "/claim", { anonymous_id: `svc_anon_${randomBytes(6).toString("hex")}`, user_id: uid("fresh") })).status).toBe(200);
    // Only the anonymous record exists: the claim renames it.
    const renamedAnonymous = `svc_anon_${randomBytes(6).toString("hex")}`;
    const renamed = uid("renamed");
    await post(apple, [anEvent({ user_id: renamedAnonymous })]);
    await ingestSettled(service);
    expect((await identity(http, apple.clientKey, "/claim", { anonymous_id: renamedAnonymous, user_id: renamed })).status).toBe(200);
    await ingestSettled(service);
    // The search reads its own table: it follows creations, the merge and the rename.
    const search = async (text: string) => {
      const response = await http.get(`/v1/app-users?project_id=${projectId}&data_mode=all&search=${text}`, { token: owner.token });
      expect(response.status).toBe(200);
      return response.body.users.map((found: { user_id: string }) => found.user_id);
    };
    expect(await search(renamed)).toEqual([renamed]);
    expect(await search(renamedAnonymous)).toEqual([]);
    expect(await search(anonymous)).toEqual([]);
    expect(await search(known)).toEqual([known]);

    const admin = new pg.Client({ connectionString: service.databaseUrl });
    await admin.connect();
    try {
      const snapshot = async () => {
        const result: Record<string, string[]> = {};
        for (const table of ["app_users", "app_user_apps", "app_user_search", "app_user_claims", "identity_versions", "identity_superseded", "app_languages"]) {
          const { rows } = await admin.query<{ row: string }>(`select to_jsonb(t)::text as row from public.${table} t`);
          result[table] = rows.map((row) => row.row).sort();
        }
        return result;
      };
      const before = await snapshot();
      expect(before.app_users!.length).toBeGreaterThan(8);
      expect(before.app_user_claims!.length).toBeGreaterThanOrEqual(3);
      // One search row per record, no more.
      const ids = (rows: string[]) => rows.map((row) => JSON.parse(row)).map((row: { project_id: string; user_id: string }) => `${row.project_id}/${row.user_id}`).sort();
      expect(ids(before.app_user_search!)).toEqual(ids(before.app_users!));
      const generation = await replay(replayDeps(service), projectionNamed("app_users"));
      expect(generation).toBeGreaterThan(1);
      expect(await snapshot()).toEqual(before);
    } finally {
      await admin.end();
    }
  });
});
