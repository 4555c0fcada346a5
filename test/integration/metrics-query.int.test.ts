import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aggregateMetric } from "../../projections/metric-events/aggregate.ts";
import { projectWithApp } from "../support/catalog.ts";
import { appendImport, at, DAY, getWhen, ingestAll, metricEvent, midnightDaysAgo } from "../support/analytics.ts";
import { anError, type Client } from "../support/http.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * Metric events through HTTP against real NATS and Postgres: events ingested (scrambled, with a
 * duplicate and noise) become metric events, and every number of the aggregation object, the
 * list, the stats and the completions count is checked against figures worked out by hand below.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let target: { project: any; app: any; clientKey: string };

// Four days back: the latest event (D + 50 h) is then more than 24 hours old at any time of day,
// as the default-window assertions need, and `since=5d` still covers every event.
const D = midnightDaysAgo(4);
const WHOLE = `since=${new Date(D).toISOString()}&until=${new Date(D + 3 * DAY).toISOString()}`;
const T1 = randomUUID();
const v1 = { app_version: "1.0" };
const v2 = { app_version: "2.0" };

// Production data. Durations: 100, 300, 200, 400, 250, 100 (six); users u1..u5 (one event has none).
const production = [
  metricEvent("checkout", "start", at(D, 1), { user_id: "u1", ...v1 }, { tracking_id: T1 }),
  metricEvent("checkout", "complete", at(D, 1, 0, 5), { user_id: "u1", ...v1, device_model: "iPhone15,2", os_version: "17.1" }, { tracking_id: T1, duration_ms: "100", step: "pay" }),
  metricEvent("checkout", "start", at(D, 2, 10), { user_id: "u2", ...v1 }),
  metricEvent("checkout", "fail", at(D, 2, 10, 3), { user_id: "u2", ...v1 }, { duration_ms: "300", error: "timeout" }),
  metricEvent("checkout", "complete", at(D, 27), { user_id: "u3", ...v2 }, { duration_ms: "200" }),
  metricEvent("checkout", "fail", at(D, 27, 30), { user_id: "u3", ...v2 }, { duration_ms: "400", error: "timeout" }),
  metricEvent("checkout", "fail", at(D, 29), { user_id: "u4", ...v2 }, { error: "network" }),
  metricEvent("checkout", "cancel", at(D, 30), { user_id: "u1", ...v2 }),
  metricEvent("checkout", "record", at(D, 48, 30), { ...v2 }, { duration_ms: "250" }),
  metricEvent("checkout", "complete", at(D, 49), { user_id: "u2", ...v2 }, { duration_ms: "100" }),
  metricEvent("checkout", "fail", at(D, 50), { user_id: "u5", ...v2 }, { error: "auth" }),
];
const development = [
  metricEvent("checkout", "complete", at(D, 1, 30), { user_id: "u9", is_dev: true, ...v1 }, { duration_ms: "1000" }),
  metricEvent("checkout", "fail", at(D, 1, 40), { user_id: "u9", is_dev: true, ...v1 }, { error: "dev-crash" }),
];
const noise = [
  { ...metricEvent("checkout", "finish", at(D, 3)), user_id: "u1" },
  { ...metricEvent("Checkout", "start", at(D, 3)), user_id: "u1" },
  { ...metricEvent("checkout", "start", at(D, 3)), message: "metric:checkout:start:extra" },
  { ...metricEvent("checkout", "start", at(D, 3)), message: "checkout started" },
  metricEvent("signup", "start", at(D, 4), { user_id: "u1" }),
  metricEvent("signup", "start", at(D, 5), { user_id: "u6" }),
];

const base = () => `/v1/projects/${target.project.id}`;
const query = (slug: string, params: string) => http.get(`${base()}/metrics/${slug}/query?${params}`, { token: owner.token });
const aggregation = async (params: string, slug = "checkout") => {
  const answer = await query(slug, params);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.slug).toBe(slug);
  return answer.body.aggregation;
};

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  target = await projectWithApp(http, owner.token, owner.teamId);
  for (const slug of ["checkout", "signup", "empty"]) {
    const created = await http.post(`${base()}/metrics`, { name: slug, slug }, { token: owner.token });
    expect(created.status).toBe(201);
  }
  // Out of timestamp order, over several requests; the last repeats an event already sent.
  const all = [...production, ...development];
  await ingestAll(http, target, [...noise, all[9]!, all[3]!, all[12]!, all[0]!]);
  await ingestAll(http, target, [all[6]!, all[1]!, all[11]!, all[8]!, all[2]!]);
  await ingestAll(http, target, [all[10]!, all[5]!, all[4]!, all[7]!, { ...all[1]!, custom_attributes: { duration_ms: "5000" } }]);
  await getWhen(http, owner.token, `${base()}/metrics/checkout/query?${WHOLE}&data_mode=all`, (body) => body.aggregation.total_count === 13);
  await getWhen(http, owner.token, `${base()}/metrics/signup/query?${WHOLE}`, (body) => body.aggregation.total_count === 2);
});
afterAll(async () => stopTestService(service));

describe("GET /metrics/:slug/query", () => {
  it("aggregates production data by default, every number as worked out by hand", async () => {
    expect(await aggregation(WHOLE)).toEqual({
      total_count: 11,
      start_count: 2,
      complete_count: 3,
      fail_count: 4,
      cancel_count: 1,
      record_count: 1,
      success_rate: 42.86, // 3 / (3 + 4)
      duration_avg_ms: 225, // (100 + 300 + 200 + 400 + 250 + 100) / 6
      duration_p50_ms: 225, // sorted 100 100 200 250 300 400: halfway between 200 and 250
      duration_p95_ms: 375, // rank 4.75: 300 + 0.75 * 100
      duration_p99_ms: 395, // rank 4.95: 300 + 0.95 * 100
      unique_users: 5, // u1..u5; the record without a user does not count
      error_breakdown: [
        { error: "timeout", count: 2 },
        { error: "auth", count: 1 }, // ties by error text
        { error: "network", count: 1 },
      ],
      sample_rate: 1,
    });
  });

  it("answers development and all data modes", async () => {
    expect(await aggregation(`${WHOLE}&data_mode=development`)).toMatchObject({
      total_count: 2,
      complete_count: 1,
      fail_count: 1,
      success_rate: 50,
      duration_avg_ms: 1000,
      duration_p50_ms: 1000,
      duration_p95_ms: 1000,
      duration_p99_ms: 1000,
      unique_users: 1,
      error_breakdown: [{ error: "dev-crash", count: 1 }],
    });
    expect(await aggregation(`${WHOLE}&data_mode=all`)).toMatchObject({
      total_count: 13,
      start_count: 2,
      complete_count: 4,
      fail_count: 5,
      success_rate: 44.44, // 4 / 9
      duration_avg_ms: 335.71, // 2350 / 7
      duration_p50_ms: 250, // sorted 100 100 200 250 300 400 1000: the middle one
      duration_p95_ms: 820, // rank 5.7: 400 + 0.7 * 600
      duration_p99_ms: 964, // rank 5.94: 400 + 0.94 * 600
      unique_users: 6,
      error_breakdown: [
        { error: "timeout", count: 2 },
        { error: "auth", count: 1 },
        { error: "dev-crash", count: 1 },
        { error: "network", count: 1 },
      ],
    });
  });

  it("groups by day, ascending", async () => {
    const day = (n: number) => new Date(D + n * DAY).toISOString();
    expect((await aggregation(`${WHOLE}&group_by=time:day`)).groups).toEqual([
      { key: "time:day", value: day(0), total_count: 4, complete_count: 1, fail_count: 1, success_rate: 50, duration_avg_ms: 200 },
      { key: "time:day", value: day(1), total_count: 4, complete_count: 1, fail_count: 2, success_rate: 33.33, duration_avg_ms: 300 },
      { key: "time:day", value: day(2), total_count: 3, complete_count: 1, fail_count: 1, success_rate: 50, duration_avg_ms: 175 },
    ]);
  });

  it("groups by week (Monday, UTC) and by app", async () => {
    const weekOf = (ms: number) => {
      const midnight = Math.floor(ms / DAY) * DAY;
      const weekday = (new Date(midnight).getUTCDay() + 6) % 7; // Monday = 0
      return new Date(midnight - weekday * DAY).toISOString();
    };
    const times = production.map((event) => Date.parse(event.timestamp));
    const expected = new Map<string, number>();
    for (const ms of times) expected.set(weekOf(ms), (expected.get(weekOf(ms)) ?? 0) + 1);
    const weeks = (await aggregation(`${WHOLE}&group_by=time:week`)).groups;
    expect(weeks.map((group: any) => [group.value, group.total_count])).toEqual([...expected].sort());
    expect((await aggregation(`${WHOLE}&group_by=app_id`)).groups).toEqual([
      { key: "app_id", value: target.app.id, total_count: 11, complete_count: 3, fail_count: 4, success_rate: 42.86, duration_avg_ms: 225 },
    ]);
  });

  it("groups by event fields, largest group first, and filters on them", async () => {
    expect((await aggregation(`${WHOLE}&group_by=app_version`)).groups).toEqual([
      { key: "app_version", value: "2.0", total_count: 7, complete_count: 2, fail_count: 3, success_rate: 40, duration_avg_ms: 237.5 },
      { key: "app_version", value: "1.0", total_count: 4, complete_count: 1, fail_count: 1, success_rate: 50, duration_avg_ms: 200 },
    ]);
    expect((await aggregation(`${WHOLE}&group_by=device_model`)).groups).toEqual([
      { key: "device_model", value: null, total_count: 10, complete_count: 2, fail_count: 4, success_rate: 33.33, duration_avg_ms: 250 },
      { key: "device_model", value: "iPhone15,2", total_count: 1, complete_count: 1, fail_count: 0, success_rate: 100, duration_avg_ms: 100 },
    ]);
    expect(await aggregation(`${WHOLE}&user_id=u1`)).toMatchObject({
      total_count: 3,
      start_count: 1,
      complete_count: 1,
      cancel_count: 1,
      success_rate: 100,
      duration_avg_ms: 100,
      duration_p50_ms: 100,
      duration_p99_ms: 100,
      unique_users: 1,
      error_breakdown: [],
    });
    expect(await aggregation(`${WHOLE}&app_version=1.0&os_version=17.1`)).toMatchObject({ total_count: 1, complete_count: 1, unique_users: 1 });
    expect(await aggregation(`${WHOLE}&environment=ipados`)).toMatchObject({ total_count: 0, success_rate: null, duration_avg_ms: null, unique_users: 0 });
    expect(await aggregation(`${WHOLE}&app_id=${target.app.id}`)).toMatchObject({ total_count: 11 });
    expect(await aggregation(`${WHOLE}&app_id=${randomUUID()}`)).toMatchObject({ total_count: 0 });
  });

  it("reads windows that start and end inside an hour exactly (hourly counts plus the edges)", async () => {
    const window = `since=${at(D, 1, 0, 3)}&until=${at(D, 27, 15)}`;
    expect(await aggregation(`${window}&group_by=time:hour`)).toEqual({
      total_count: 4,
      start_count: 1,
      complete_count: 2,
      fail_count: 1,
      cancel_count: 0,
      record_count: 0,
      success_rate: 66.67,
      duration_avg_ms: 200,
      duration_p50_ms: 200,
      duration_p95_ms: 290, // sorted 100 200 300, rank 1.9
      duration_p99_ms: 298,
      unique_users: 3,
      error_breakdown: [{ error: "timeout", count: 1 }],
      sample_rate: 1,
      groups: [
        { key: "time:hour", value: at(D, 1), total_count: 1, complete_count: 1, fail_count: 0, success_rate: 100, duration_avg_ms: 100 },
        { key: "time:hour", value: at(D, 2), total_count: 2, complete_count: 0, fail_count: 1, success_rate: 0, duration_avg_ms: 300 },
        { key: "time:hour", value: at(D, 27), total_count: 1, complete_count: 1, fail_count: 0, success_rate: 100, duration_avg_ms: 200 },
      ],
    });
    // Inside a single hour, and exactly on an event's timestamp at both ends (inclusive).
    expect(await aggregation(`since=${at(D, 2, 10)}&until=${at(D, 2, 10, 3)}`)).toMatchObject({ total_count: 2, start_count: 1, fail_count: 1 });
  });

  it("has a null success rate and no durations for a metric without outcomes", async () => {
    expect(await aggregation(WHOLE, "signup")).toMatchObject({
      total_count: 2,
      start_count: 2,
      success_rate: null,
      duration_avg_ms: null,
      duration_p50_ms: null,
      duration_p95_ms: null,
      duration_p99_ms: null,
      unique_users: 2,
      error_breakdown: [],
    });
    expect(await aggregation(`${WHOLE}&group_by=time:day`, "empty")).toMatchObject({ total_count: 0, unique_users: 0, groups: [] });
  });

  it("defaults to the last 24 hours and rejects bad input with 400", async () => {
    expect(await aggregation("")).toMatchObject({ total_count: 0 });
    expect(await aggregation("since=5d")).toMatchObject({ total_count: 11 });
    for (const bad of ["group_by=time:month", "data_mode=prod", "since=yesterday", `since=${at(D, 5)}&until=${at(D, 4)}`, "app_id=nope", "environment=symbian", "app_version=1%00"]) {
      expect(await query("checkout", bad), bad).toMatchObject({ status: 400, body: anError });
    }
    expect(await query("unknown", WHOLE)).toMatchObject({ status: 404, body: anError });
    expect(await query("Not A Slug", WHOLE)).toMatchObject({ status: 400, body: anError });
  });
});

describe("GET /metrics/:slug/events", () => {
  const list = (params: string) => http.get(`${base()}/metrics/checkout/events?${params}`, { token: owner.token });

  it("lists metric events newest first with every field, and pages with a cursor", async () => {
    const first = await list(`${WHOLE}&limit=4`);
    expect(first.status).toBe(200);
    expect(first.body.events.map((event: any) => event.timestamp)).toEqual([at(D, 50), at(D, 49), at(D, 48, 30), at(D, 30)]);
    expect(first.body.has_more).toBe(true);
    const rest = await list(`${WHOLE}&limit=50&cursor=${encodeURIComponent(first.body.cursor)}`);
    expect(rest.body.events).toHaveLength(7);
    expect(rest.body).toMatchObject({ has_more: false, cursor: null });
    const complete = rest.body.events.find((event: any) => event.tracking_id === T1 && event.phase === "complete");
    expect(complete).toEqual({
      id: expect.any(String),
      app_id: target.app.id,
      session_id: production[1]!.session_id,
      user_id: "u1",
      api_key_id: expect.any(String),
      metric_slug: "checkout",
      phase: "complete",
      tracking_id: T1,
      duration_ms: 100,
      error: null,
      attributes: { step: "pay" },
      environment: "ios",
      os_version: "17.1",
      app_version: "1.0",
      device_model: "iPhone15,2",
      build_number: null,
      is_dev: false,
      client_event_id: production[1]!.client_event_id,
      timestamp: at(D, 1, 0, 5),
      received_at: expect.any(String),
    });
  });

  it("filters by phase, tracking id, user, environment and data mode", async () => {
    const ids = async (params: string) => (await list(`${WHOLE}&${params}`)).body.events.map((event: any) => event.timestamp);
    expect(await ids("phase=fail")).toEqual([at(D, 50), at(D, 29), at(D, 27, 30), at(D, 2, 10, 3)]);
    expect(await ids(`tracking_id=${T1}`)).toEqual([at(D, 1, 0, 5), at(D, 1)]);
    // A UUID matches in any letter case, as clients compare them.
    expect(await ids(`tracking_id=${T1.toUpperCase()}`)).toEqual([at(D, 1, 0, 5), at(D, 1)]);
    expect(await ids("user_id=u3")).toEqual([at(D, 27, 30), at(D, 27)]);
    expect(await ids("environment=macos")).toEqual([]);
    expect(await ids("data_mode=development")).toEqual([at(D, 1, 40), at(D, 1, 30)]);
    expect((await list(`${WHOLE}&data_mode=all`)).body.events).toHaveLength(13);
    const early = await list(`since=${new Date(D).toISOString()}&until=${at(D, 2)}`);
    expect(early.body.events.map((event: any) => event.timestamp)).toEqual([at(D, 1, 0, 5), at(D, 1)]);
    expect(await list(`since=${at(D, 5)}&until=${at(D, 4)}`)).toMatchObject({ status: 400, body: anError });
  });

  it("pages through events that share a timestamp without losing any", async () => {
    const same = at(D, 60);
    await ingestAll(http, target, Array.from({ length: 5 }, () => metricEvent("tied", "record", same, { user_id: "t" })));
    await http.post(`${base()}/metrics`, { name: "tied", slug: "tied" }, { token: owner.token });
    const seen: string[] = [];
    let cursor: string | null = null;
    await getWhen(http, owner.token, `${base()}/metrics/tied/events?${WHOLE}`, (body) => body.events.length === 5);
    do {
      const page: any = await http.get(`${base()}/metrics/tied/events?${WHOLE}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { token: owner.token });
      seen.push(...page.body.events.map((event: any) => event.id));
      cursor = page.body.cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(5);
  });

  it("rejects bad input with 400", async () => {
    for (const bad of ["phase=done", "limit=0", "limit=1.5", "cursor=yesterday", "data_mode=x"]) {
      expect(await list(bad), bad).toMatchObject({ status: 400, body: anError });
    }
  });
});

describe("metric stats and completions", () => {
  it("gives one row per definition, zero-event ones included", async () => {
    const stats = await http.get(`${base()}/metric-stats?since=5d`, { token: owner.token });
    expect(stats.body).toEqual({
      stats: [
        { slug: "checkout", complete_count: 3, fail_count: 4, success_rate: 42.86 },
        { slug: "empty", complete_count: 0, fail_count: 0, success_rate: null },
        { slug: "signup", complete_count: 0, fail_count: 0, success_rate: null },
        { slug: "tied", complete_count: 0, fail_count: 0, success_rate: null },
      ],
    });
    const dev = await http.get(`${base()}/metric-stats?since=5d&data_mode=development`, { token: owner.token });
    expect(dev.body.stats[0]).toEqual({ slug: "checkout", complete_count: 1, fail_count: 1, success_rate: 50 });
    // The default window is the last 24 hours: nothing of the data set is in it.
    expect((await http.get(`${base()}/metric-stats`, { token: owner.token })).body.stats[0]).toMatchObject({ complete_count: 0, fail_count: 0 });
  });

  it("answers team-wide stats with project ids, and nothing for a team the caller cannot see", async () => {
    const teamWide = await http.get(`/v1/metric-stats?team_id=${owner.teamId}&since=5d`, { token: owner.token });
    expect(teamWide.body.stats).toContainEqual({ project_id: target.project.id, slug: "checkout", complete_count: 3, fail_count: 4, success_rate: 42.86 });
    expect(await http.get(`/v1/metric-stats?team_id=${randomUUID()}`, { token: owner.token })).toMatchObject({ status: 200, body: { stats: [] } });
    expect(await http.get(`/v1/metric-stats`, { token: owner.token })).toMatchObject({ status: 400, body: anError });
  });

  it("counts complete and fail events across the caller's metrics", async () => {
    const count = (params: string) => http.get(`/v1/metrics/completions/count?${params}`, { token: owner.token });
    expect((await count(`project_id=${target.project.id}&since=5d`)).body).toEqual({ count: 3, failed: 4 });
    expect((await count(`project_id=${target.project.id}&since=5d&data_mode=all`)).body).toEqual({ count: 4, failed: 5 });
    expect((await count(`team_id=${owner.teamId}&app_id=${target.app.id}&since=5d`)).body).toEqual({ count: 3, failed: 4 });
    expect((await count(`team_id=${randomUUID()}&since=5d`)).body).toEqual({ count: 0, failed: 0 });
    expect(await count("since=soon")).toMatchObject({ status: 400, body: anError });
    // Still served unchanged by the definitions' own routes on the shared /v1/metrics prefix.
    expect((await http.get(`/v1/metrics?team_id=${owner.teamId}`, { token: owner.token })).status).toBe(200);
  });
});

describe("access", () => {
  it("hides other teams' projects and needs metrics:read on keys", async () => {
    const stranger = await signIn(http, service.outbox);
    expect(await http.get(`${base()}/metrics/checkout/query`, { token: stranger.token })).toMatchObject({ status: 404, body: anError });
    expect(await http.get(`${base()}/metric-stats`, { token: stranger.token })).toMatchObject({ status: 404, body: anError });
    expect(await http.get(`${base()}/metrics/checkout/query`)).toMatchObject({ status: 401, body: anError });
    const key = await http.post("/v1/auth/keys", { name: "no metrics", key_type: "agent", team_id: owner.teamId, permissions: ["events:read"] }, { token: owner.token });
    expect(await http.get(`${base()}/metrics/checkout/events`, { token: key.body.api_key.secret })).toMatchObject({ status: 403, body: anError });
    const reader = await http.post("/v1/auth/keys", { name: "metrics", key_type: "agent", team_id: owner.teamId, permissions: ["metrics:read"] }, { token: owner.token });
    expect((await http.get(`${base()}/metrics/checkout/query?${WHOLE}`, { token: reader.body.api_key.secret })).body.aggregation.total_count).toBe(11);
  });
});

describe("derived rows", () => {
  it("refreshes metric events when an import updates their events in place", async () => {
    await http.post(`${base()}/metrics`, { name: "imports", slug: "imports" }, { token: owner.token });
    const updated = metricEvent("imports", "complete", at(D, 5), { user_id: "ua" }, { duration_ms: "100" });
    const dropped = metricEvent("imports", "start", at(D, 6), { user_id: "ua" });
    await ingestAll(http, target, [updated, dropped]);
    const params = `${WHOLE}&data_mode=all`;
    await getWhen(http, owner.token, `${base()}/metrics/imports/query?${params}`, (body) => body.aggregation.total_count === 2);
    const before = (await http.get(`${base()}/metrics/imports/events?${params}`, { token: owner.token })).body.events;
    const updatedId = before.find((event: any) => event.phase === "complete").id;

    const key = await http.post("/v1/auth/keys", { name: "import", key_type: "import", app_id: target.app.id }, { token: owner.token });
    await appendImport(service, target.app, key.body.api_key.id, [
      { ...updated, message: "metric:imports:fail", custom_attributes: { error: "late" } },
      { ...dropped, message: "opened the app" },
      metricEvent("imports", "record", at(D, 7), { user_id: "ub" }),
      { ...metricEvent("imports", "record", at(D, 8)), client_event_id: undefined },
    ]);
    const after = await getWhen(http, owner.token, `${base()}/metrics/imports/query?${params}`, (body) => body.aggregation.record_count === 2);
    expect(after.aggregation).toMatchObject({
      total_count: 3,
      start_count: 0,
      complete_count: 0,
      fail_count: 1,
      record_count: 2,
      success_rate: 0,
      duration_avg_ms: null,
      unique_users: 2,
      error_breakdown: [{ error: "late", count: 1 }],
    });
    const events = (await http.get(`${base()}/metrics/imports/events?${params}`, { token: owner.token })).body.events;
    expect(events.find((event: any) => event.phase === "fail")).toMatchObject({ id: updatedId, error: "late", client_event_id: updated.client_event_id });
  });

  it("moves metric events to the claiming user", async () => {
    await http.post(`${base()}/metrics`, { name: "claimed", slug: "claimed" }, { token: owner.token });
    const anonymous = `svc_anon_${randomUUID()}`;
    await ingestAll(http, target, [metricEvent("claimed", "record", at(D, 9), { user_id: anonymous }), metricEvent("claimed", "record", at(D, 10), { user_id: "known" })]);
    await getWhen(http, owner.token, `${base()}/metrics/claimed/query?${WHOLE}`, (body) => body.aggregation.unique_users === 2);
    const claim = await http.post("/v1/identity/claim", { anonymous_id: anonymous, user_id: "known" }, { token: target.clientKey });
    expect(claim.status, JSON.stringify(claim.body)).toBe(200);
    expect((await aggregation(WHOLE, "claimed")).unique_users).toBe(1);
    const users = (await http.get(`${base()}/metrics/claimed/events?${WHOLE}`, { token: owner.token })).body.events.map((event: any) => event.user_id);
    expect(users).toEqual(["known", "known"]);
  });

  it("does not serve events older than the project's metric retention", async () => {
    const other = await projectWithApp(http, owner.token, owner.teamId);
    await http.post(`/v1/projects/${other.project.id}/metrics`, { name: "kept", slug: "kept" }, { token: owner.token });
    const now = Date.now();
    await ingestAll(http, other, [
      metricEvent("kept", "complete", new Date(now - 5 * DAY).toISOString(), { user_id: "old" }),
      metricEvent("kept", "complete", new Date(now - 3_600_000).toISOString(), { user_id: "new" }),
    ]);
    const path = `/v1/projects/${other.project.id}/metrics/kept/query?since=7d`;
    await getWhen(http, owner.token, path, (body) => body.aggregation.total_count === 2);
    expect((await http.patch(`/v1/projects/${other.project.id}`, { retention_days_metrics: 3 }, { token: owner.token })).status).toBe(200);
    expect((await http.get(path, { token: owner.token })).body.aggregation).toMatchObject({ total_count: 1, unique_users: 1 });
    const listed = await http.get(`/v1/projects/${other.project.id}/metrics/kept/events`, { token: owner.token });
    expect(listed.body.events.map((event: any) => event.user_id)).toEqual(["new"]);
    const stats = await http.get(`/v1/projects/${other.project.id}/metric-stats?since=7d`, { token: owner.token });
    expect(stats.body.stats).toEqual([{ slug: "kept", complete_count: 1, fail_count: 0, success_rate: 100 }]);
  });
});

describe("large windows", () => {
  it("estimates unique users and percentiles from a sample of users, counts stay exact", async () => {
    await http.post(`${base()}/metrics`, { name: "sampled", slug: "sampled" }, { token: owner.token });
    // 600 users, one completion each; durations 1..100 six times: exactly p50 50.5, p95 95.05, p99 99.01.
    const sent = Array.from({ length: 600 }, (_, i) => metricEvent("sampled", "complete", at(D, 10 + (i % 30), i % 60), { user_id: `s${i}` }, { duration_ms: String((i % 100) + 1) }));
    await ingestAll(http, target, sent);
    await getWhen(http, owner.token, `${base()}/metrics/sampled/query?${WHOLE}`, (body) => body.aggregation.total_count === 600);
    const scope = { projectId: target.project.id, appIds: [target.app.id], dataMode: "production" as const, since: new Date(D), until: new Date(D + 3 * DAY) };
    const estimated = await aggregateMetric(service.pool, scope, "sampled", {}, "time:day", { exactLimit: 200, minSampledUsers: 50 });
    expect(estimated).toMatchObject({ total_count: 600, complete_count: 600, success_rate: 100, duration_avg_ms: 50.5 });
    expect(estimated.sample_rate).toBe(341 / 1024); // 1024 * 200 / 600 buckets
    expect(estimated.unique_users).toBeGreaterThan(480);
    expect(estimated.unique_users).toBeLessThan(720);
    expect(Math.abs(estimated.duration_p50_ms! - 50.5)).toBeLessThan(10);
    expect(Math.abs(estimated.duration_p95_ms! - 95.05)).toBeLessThan(5);
    expect(estimated.groups!.reduce((sum, group) => sum + group.total_count, 0)).toBe(600);
    // Too few users in the sample to trust: read exactly instead.
    expect(await aggregateMetric(service.pool, scope, "sampled", {}, undefined, { exactLimit: 200, minSampledUsers: 10_000 })).toMatchObject({
      unique_users: 600,
      duration_p50_ms: 50.5,
      duration_p95_ms: 95.05,
      duration_p99_ms: 99.01,
      sample_rate: 1,
    });
  });
});
