import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at, DAY, funnelQuery, getWhen, ingestAll, metricEvent, midnightDaysAgo, stepEvent, stepUsers } from "../support/analytics.ts";
import { createProject, projectWithApp, uniqueSlug } from "../support/catalog.ts";
import type { Client } from "../support/http.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * Metric and funnel analytics through HTTP against real NATS and Postgres, for behaviour the other
 * files leave out: funnels refreshed by an import, a restored metric serving its old events,
 * grouping by OS version and environment, the top-20 errors and 100-groups limits, zero rows of
 * the metric stats and the funnel query's 30-day default window. Every figure is worked out by hand.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;

type Target = { project: any; app: any; clientKey: string };

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
});
afterAll(async () => stopTestService(service));

const importKeyOf = async (target: Target) => {
  const key = await http.post("/v1/auth/keys", { name: "import", key_type: "import", app_id: target.app.id }, { token: owner.token });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  return key.body.api_key.secret as string;
};

const define = async (projectId: string, kind: "metrics" | "funnels", body: Record<string, unknown>) => {
  const created = await http.post(`/v1/projects/${projectId}/${kind}`, body, { token: owner.token });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
};

const aggregationOf = async (projectId: string, slug: string, params: string) => {
  const answer = await http.get(`/v1/projects/${projectId}/metrics/${slug}/query?${params}`, { token: owner.token });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.slug).toBe(slug);
  return answer.body.aggregation;
};

/** A step figure of a funnel answer. */
const step = (index: number, name: string, users: number, percentage: number, dropOff: number, dropOffPercentage: number) => ({
  step_index: index,
  step_name: name,
  unique_users: users,
  percentage,
  drop_off_count: dropOff,
  drop_off_percentage: dropOffPercentage,
});

describe("funnel query window", () => {
  it("looks back 30 days by default: an event 31 days old is not counted, one 29 days old is, one ahead of now is not", async () => {
    const target = await projectWithApp(http, owner.token, owner.teamId);
    await define(target.project.id, "funnels", { name: "Entry", slug: "entry", steps: [{ name: "Enter", event_filter: { step_name: "enter" } }] });
    const now = Date.now();
    const sent = await http.post(
      "/v1/import",
      {
        events: [
          stepEvent("enter", "old", new Date(now - 31 * DAY).toISOString()),
          stepEvent("enter", "recent", new Date(now - 29 * DAY).toISOString()),
          // Import takes timestamps up to 5 minutes ahead; the default window ends now.
          stepEvent("enter", "ahead", new Date(now + 4.5 * 60_000).toISOString()),
        ],
      },
      { token: await importKeyOf(target) },
    );
    expect(sent.body).toEqual({ accepted: 3, updated: 0, rejected: 0 });
    const everything = `since=40d&until=${new Date(now + DAY).toISOString()}`;
    await getWhen(http, owner.token, `/v1/projects/${target.project.id}/funnels/entry/query?${everything}`, (body) => body.analytics.total_users === 3);

    const analytics = (params: string) => funnelQuery(http, owner.token, target.project.id, "entry", params);
    expect(await analytics("")).toEqual({ funnel: "Entry", mode: "open", total_users: 1, steps: [step(0, "Enter", 1, 100, 0, 0)] });
    expect((await analytics("mode=closed")).total_users).toBe(1);
    expect((await analytics("since=32d")).total_users).toBe(2);
    expect((await analytics(`until=${new Date(now + DAY).toISOString()}`)).total_users).toBe(2);
  });
});

describe("funnels refreshed by an import", () => {
  it("recounts both modes when imports change events' messages under the same client_event_id", async () => {
    const target = await projectWithApp(http, owner.token, owner.teamId);
    const projectId = target.project.id;
    const steps = [
      { name: "A", event_filter: { step_name: "a" } },
      { name: "B", event_filter: { step_name: "b" } },
    ];
    await define(projectId, "funnels", { name: "Refresh", slug: "refresh", steps });
    // Each batch carries one marker step; the marker funnel counting it means the batch is applied.
    await define(projectId, "funnels", { name: "Marker", slug: "marker", steps: [{ name: "M", event_filter: { step_name: "marker" } }] });
    const B = midnightDaysAgo(3);
    const u1second = stepEvent("a", "u1", at(B, 2));
    const u2only = stepEvent("a", "u2", at(B, 3));
    const u4only = stepEvent("a", "u4", at(B, 6));
    // u1: a, a. u2: a. u3: a then b. u4: a.
    await ingestAll(http, target, [
      stepEvent("a", "u1", at(B, 1)),
      u1second,
      u2only,
      stepEvent("a", "u3", at(B, 4)),
      stepEvent("b", "u3", at(B, 5)),
      u4only,
      stepEvent("marker", "m1", at(B, 7)),
    ]);
    await getWhen(http, owner.token, `/v1/projects/${projectId}/funnels/marker/query`, (body) => body.analytics.total_users === 1);
    const analytics = (params: string) => funnelQuery(http, owner.token, projectId, "refresh", params);
    // Closed: a = {u1 u2 u3 u4}, b after a = {u3}. Open: b = {u3}; a raised by it stays 4.
    expect((await analytics("mode=closed")).steps).toEqual([step(0, "A", 4, 100, 0, 0), step(1, "B", 1, 25, 3, 75)]);
    expect(stepUsers(await analytics("mode=open"))).toEqual([4, 1]);

    // u1's second a becomes b, u2's only a becomes b, u4's a is no step any more.
    const imported = await http.post(
      "/v1/import",
      {
        events: [
          { ...u1second, message: "step:b" },
          { ...u2only, message: "step:b" },
          { ...u4only, message: "opened the app" },
          stepEvent("marker", "m2", at(B, 8)),
        ],
      },
      { token: await importKeyOf(target) },
    );
    expect(imported.body).toEqual({ accepted: 1, updated: 3, rejected: 0 });
    await getWhen(http, owner.token, `/v1/projects/${projectId}/funnels/marker/query`, (body) => body.analytics.total_users === 2);
    // Closed: a = {u1 u3}, b after a = {u1 u3}; u2 never did a. Open: b = {u1 u2 u3}, a raised to 3.
    expect(await analytics("mode=closed")).toEqual({ funnel: "Refresh", mode: "closed", total_users: 2, steps: [step(0, "A", 2, 100, 0, 0), step(1, "B", 2, 100, 0, 0)] });
    expect(await analytics("mode=open")).toEqual({ funnel: "Refresh", mode: "open", total_users: 3, steps: [step(0, "A", 3, 100, 0, 0), step(1, "B", 3, 100, 0, 0)] });
    // Completions: last step b by {u1 u2 u3}; first or last step by the same three.
    expect((await http.get(`/v1/funnels/completions/count?project_id=${projectId}`, { token: owner.token })).body).toEqual({ count: 3 + 2, started: 3 + 2 });
  });
});

describe("a restored metric", () => {
  it("serves the events sent before its soft delete again, under the same id", async () => {
    const target = await projectWithApp(http, owner.token, owner.teamId);
    const base = `/v1/projects/${target.project.id}/metrics`;
    const first = await define(target.project.id, "metrics", { name: "Restock", slug: "restock" });
    const D = midnightDaysAgo(2);
    const window = `since=${new Date(D).toISOString()}&until=${new Date(D + DAY).toISOString()}`;
    const sent = [
      metricEvent("restock", "start", at(D, 1), { user_id: "u1" }),
      metricEvent("restock", "complete", at(D, 1, 5), { user_id: "u1" }, { duration_ms: "120" }),
      metricEvent("restock", "fail", at(D, 3), { user_id: "u2" }, { duration_ms: "80", error: "empty" }),
    ];
    await ingestAll(http, target, sent);
    const listed = await getWhen(http, owner.token, `${base}/restock/events?${window}`, (body) => body.events.length === 3);
    const expected = {
      total_count: 3,
      start_count: 1,
      complete_count: 1,
      fail_count: 1,
      cancel_count: 0,
      record_count: 0,
      success_rate: 50,
      duration_avg_ms: 100,
      duration_p50_ms: 100,
      duration_p95_ms: 118, // 80 + 0.95 * 40
      duration_p99_ms: 119.6,
      unique_users: 2,
      error_breakdown: [{ error: "empty", count: 1 }],
      sample_rate: 1,
    };
    expect(await aggregationOf(target.project.id, "restock", window)).toEqual(expected);

    expect(await http.delete(`${base}/restock`, { token: owner.token })).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await http.get(`${base}/restock/events?${window}`, { token: owner.token })).status).toBe(404);
    expect((await http.get(`${base}/restock/query?${window}`, { token: owner.token })).status).toBe(404);
    expect((await http.get(`/v1/projects/${target.project.id}/metric-stats?${window}`, { token: owner.token })).body).toEqual({ stats: [] });

    const restored = await define(target.project.id, "metrics", { name: "Restock again", slug: "restock" });
    expect(restored).toMatchObject({ id: first.id, name: "Restock again", created_at: first.created_at });
    const again = await http.get(`${base}/restock/events?${window}`, { token: owner.token });
    expect(again.body).toEqual(listed);
    expect(again.body.events.map((event: any) => event.client_event_id)).toEqual([sent[2]!.client_event_id, sent[1]!.client_event_id, sent[0]!.client_event_id]);
    expect(await aggregationOf(target.project.id, "restock", window)).toEqual(expected);
    expect((await http.get(`/v1/projects/${target.project.id}/metric-stats?${window}`, { token: owner.token })).body).toEqual({
      stats: [{ slug: "restock", complete_count: 1, fail_count: 1, success_rate: 50 }],
    });
  });
});

describe("metric query groups and limits", () => {
  let target: Target;
  const D = midnightDaysAgo(6);
  const WINDOW = `since=${new Date(D).toISOString()}&until=${new Date(D + 5 * DAY).toISOString()}`;
  const letters = "abcdefghijklmnopqrstuv"; // 22 errors: error-a happens once, error-v 22 times.

  const grouped = [
    metricEvent("grouped", "complete", at(D, 1), { user_id: "g1", os_version: "17.1" }, { duration_ms: "100" }),
    metricEvent("grouped", "complete", at(D, 2), { user_id: "g2", os_version: "17.1" }, { duration_ms: "300" }),
    metricEvent("grouped", "fail", at(D, 3), { user_id: "g3", os_version: "17.2" }, { error: "x" }),
    metricEvent("grouped", "start", at(D, 4), { user_id: "g4", os_version: "17.2", environment: "ipados" }),
    metricEvent("grouped", "complete", at(D, 5), { user_id: "g5", os_version: "16.0", environment: "ipados" }, { duration_ms: "50" }),
    metricEvent("grouped", "fail", at(D, 6), { user_id: "g6", environment: "macos" }, { duration_ms: "10" }),
    metricEvent("grouped", "record", at(D, 7), { user_id: "g7", environment: "macos" }),
    metricEvent("grouped", "start", at(D, 8), { user_id: "g8", os_version: "10.0", environment: "watchos" }),
    metricEvent("grouped", "complete", at(D, 9), { user_id: "g9", os_version: "17.1", is_dev: true }, { duration_ms: "1000" }),
  ];
  const errors = [...letters].flatMap((letter, index) =>
    Array.from({ length: index + 1 }, (_, n) => metricEvent("errors", "fail", at(D, 1 + (n % 7), index, n % 60), { user_id: `e${n}` }, { error: `error-${letter}` })),
  );
  // 9.9 three times, 1.001 to 1.099 twice each, 0.1 and 0.2 once: 102 versions.
  const versions = [
    ...Array.from({ length: 3 }, () => "9.9"),
    ...Array.from({ length: 99 }, (_, index) => `1.${String(index + 1).padStart(3, "0")}`).flatMap((version) => [version, version]),
    "0.1",
    "0.2",
  ].map((version, index) => metricEvent("versions", "complete", at(D, 10, index % 60, Math.floor(index / 60)), { app_version: version }));
  // One event in each of 102 consecutive hours, hour h lasting h * 10 ms.
  const hours = Array.from({ length: 102 }, (_, h) => metricEvent("hours", "complete", at(D, h, 30), { user_id: "h" }, { duration_ms: String(h * 10) }));

  beforeAll(async () => {
    target = await projectWithApp(http, owner.token, owner.teamId);
    for (const slug of ["grouped", "errors", "versions", "hours"]) await define(target.project.id, "metrics", { name: slug, slug });
    await ingestAll(http, target, [...grouped, ...errors, ...versions, ...hours]);
    const counted = async (slug: string, count: number) =>
      getWhen(http, owner.token, `/v1/projects/${target.project.id}/metrics/${slug}/query?${WINDOW}&data_mode=all`, (body) => body.aggregation.total_count === count);
    await counted("grouped", 9);
    await counted("errors", 253);
    await counted("versions", 203);
    await counted("hours", 102);
  });

  const aggregation = (slug: string, params: string) => aggregationOf(target.project.id, slug, `${WINDOW}&${params}`);
  const group = (key: string, value: string | null, total: number, complete: number, fail: number, rate: number | null, average: number | null) => ({
    key,
    value,
    total_count: total,
    complete_count: complete,
    fail_count: fail,
    success_rate: rate,
    duration_avg_ms: average,
  });

  it("groups by os_version: largest first, ties by value, no version last", async () => {
    expect((await aggregation("grouped", "group_by=os_version")).groups).toEqual([
      group("os_version", "17.1", 2, 2, 0, 100, 200),
      group("os_version", "17.2", 2, 0, 1, 0, null),
      group("os_version", null, 2, 0, 1, 0, 10),
      group("os_version", "10.0", 1, 0, 0, null, null),
      group("os_version", "16.0", 1, 1, 0, 100, 50),
    ]);
    expect((await aggregation("grouped", "group_by=os_version&environment=ios")).groups).toEqual([
      group("os_version", "17.1", 2, 2, 0, 100, 200),
      group("os_version", "17.2", 1, 0, 1, 0, null),
    ]);
    expect((await aggregation("grouped", "group_by=os_version&data_mode=development")).groups).toEqual([group("os_version", "17.1", 1, 1, 0, 100, 1000)]);
  });

  it("groups by environment, and counts development data only when asked", async () => {
    const production = await aggregation("grouped", "group_by=environment");
    expect(production).toMatchObject({ total_count: 8, complete_count: 3, fail_count: 2, success_rate: 60, duration_avg_ms: 115 });
    expect(production.groups).toEqual([
      group("environment", "ios", 3, 2, 1, 66.67, 200),
      group("environment", "ipados", 2, 1, 0, 100, 50),
      group("environment", "macos", 2, 0, 1, 0, 10),
      group("environment", "watchos", 1, 0, 0, null, null),
    ]);
    expect((await aggregation("grouped", "group_by=environment&data_mode=all")).groups).toEqual([
      group("environment", "ios", 4, 3, 1, 75, 466.67), // (100 + 300 + 1000) / 3
      group("environment", "ipados", 2, 1, 0, 100, 50),
      group("environment", "macos", 2, 0, 1, 0, 10),
      group("environment", "watchos", 1, 0, 0, null, null),
    ]);
    expect((await aggregation("grouped", "group_by=environment&os_version=17.2")).groups).toEqual([
      group("environment", "ios", 1, 0, 1, 0, null),
      group("environment", "ipados", 1, 0, 0, null, null),
    ]);
  });

  it("keeps the 20 most frequent errors, most frequent first, and still counts every failure", async () => {
    const result = await aggregation("errors", "");
    expect(result).toMatchObject({ total_count: 253, fail_count: 253, success_rate: 0, unique_users: 22 });
    // error-v (22 times) down to error-c (3 times); error-b and error-a are cut.
    expect(result.error_breakdown).toEqual([...letters].reverse().slice(0, 20).map((letter, index) => ({ error: `error-${letter}`, count: 22 - index })));
    // Inside a window that starts and ends within hours (edges read from the events, the rest from hourly counts).
    const edges = await aggregationOf(target.project.id, "errors", `since=${at(D, 1, 20)}&until=${at(D, 7, 10)}`);
    const expected = new Map<string, number>();
    for (const event of errors) {
      const time = Date.parse(event.timestamp);
      if (time >= Date.parse(at(D, 1, 20)) && time <= Date.parse(at(D, 7, 10))) {
        const error = event.custom_attributes.error!;
        expected.set(error, (expected.get(error) ?? 0) + 1);
      }
    }
    const top = [...expected].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 20);
    expect(edges.error_breakdown).toEqual(top.map(([error, count]) => ({ error, count })));
    expect(edges.error_breakdown).not.toEqual(result.error_breakdown);
  });

  it("keeps at most 100 groups: the largest, ties by value", async () => {
    const result = await aggregation("versions", "group_by=app_version");
    expect(result.total_count).toBe(203);
    expect(result.groups).toHaveLength(100);
    expect(result.groups).toEqual([
      group("app_version", "9.9", 3, 3, 0, 100, null),
      ...Array.from({ length: 99 }, (_, index) => group("app_version", `1.${String(index + 1).padStart(3, "0")}`, 2, 2, 0, 100, null)),
    ]);
  });

  it("keeps the latest 100 time groups, ascending", async () => {
    const result = await aggregation("hours", "group_by=time:hour");
    expect(result).toMatchObject({ total_count: 102, complete_count: 102, duration_avg_ms: 505 }); // (0 + ... + 1010) / 102
    expect(result.groups).toEqual(Array.from({ length: 100 }, (_, index) => group("time:hour", at(D, index + 2), 1, 1, 0, 100, (index + 2) * 10)));
    // Days are few: every one of them, ascending (hours 0-23, 24-47, 48-71, 72-95, 96-101).
    expect((await aggregation("hours", "group_by=time:day")).groups.map((day: any) => [day.value, day.total_count])).toEqual([
      [at(D, 0), 24],
      [at(D, 24), 24],
      [at(D, 48), 24],
      [at(D, 72), 24],
      [at(D, 96), 6],
    ]);
  });
});

describe("metric stats rows without events", () => {
  it("lists every active definition with zero counts and a null success rate, in both routes", async () => {
    const team = await http.post("/v1/teams", { name: "Stats", slug: uniqueSlug("stats") }, { token: owner.token });
    expect(team.status).toBe(201);
    const teamId = team.body.id;
    const busy = await projectWithApp(http, owner.token, teamId);
    const appless = await createProject(http, owner.token, teamId);
    for (const slug of ["alpha", "beta", "delta", "gamma", "gone"]) await define(busy.project.id, "metrics", { name: slug, slug });
    await define(appless.id, "metrics", { name: "lonely", slug: "lonely" });
    expect((await http.delete(`/v1/projects/${busy.project.id}/metrics/gone`, { token: owner.token })).status).toBe(200);

    const D = midnightDaysAgo(3);
    const inside = `since=${new Date(D).toISOString()}&until=${new Date(D + DAY).toISOString()}`;
    const wider = `since=${new Date(D).toISOString()}&until=${new Date(D + 2 * DAY).toISOString()}`;
    await ingestAll(http, busy, [
      metricEvent("alpha", "complete", at(D, 1)),
      metricEvent("alpha", "complete", at(D, 2)),
      metricEvent("alpha", "fail", at(D, 3), {}, { error: "e" }),
      // beta starts, records and cancels: no outcome.
      metricEvent("beta", "start", at(D, 4)),
      metricEvent("beta", "record", at(D, 5)),
      metricEvent("beta", "cancel", at(D, 6)),
      // delta finishes after the window; gone had events before its delete.
      metricEvent("delta", "complete", at(D, 30)),
      metricEvent("gone", "complete", at(D, 7)),
    ]);
    const statsPath = `/v1/projects/${busy.project.id}/metric-stats`;
    await getWhen(http, owner.token, `${statsPath}?${wider}`, (body) => body.stats.some((row: any) => row.slug === "delta" && row.complete_count === 1));
    await getWhen(http, owner.token, `/v1/projects/${busy.project.id}/metrics/beta/query?${inside}`, (body) => body.aggregation.total_count === 3);

    const zero = (slug: string) => ({ slug, complete_count: 0, fail_count: 0, success_rate: null });
    const alpha = { slug: "alpha", complete_count: 2, fail_count: 1, success_rate: 66.67 };
    expect((await http.get(`${statsPath}?${inside}`, { token: owner.token })).body).toEqual({ stats: [alpha, zero("beta"), zero("delta"), zero("gamma")] });
    expect((await http.get(`${statsPath}?${wider}`, { token: owner.token })).body).toEqual({
      stats: [alpha, zero("beta"), { slug: "delta", complete_count: 1, fail_count: 0, success_rate: 100 }, zero("gamma")],
    });
    expect((await http.get(`/v1/projects/${appless.id}/metric-stats?${inside}`, { token: owner.token })).body).toEqual({ stats: [zero("lonely")] });

    const teamWide = await http.get(`/v1/metric-stats?team_id=${teamId}&${inside}`, { token: owner.token });
    expect(teamWide.status).toBe(200);
    const byProjectAndSlug = (a: any, b: any) => `${a.project_id}/${a.slug}`.localeCompare(`${b.project_id}/${b.slug}`);
    expect([...teamWide.body.stats].sort(byProjectAndSlug)).toEqual(
      [
        { project_id: busy.project.id, ...alpha },
        { project_id: busy.project.id, ...zero("beta") },
        { project_id: busy.project.id, ...zero("delta") },
        { project_id: busy.project.id, ...zero("gamma") },
        { project_id: appless.id, ...zero("lonely") },
      ].sort(byProjectAndSlug),
    );
    // A window with no events at all: every row is a zero row.
    const empty = await http.get(`/v1/metric-stats?team_id=${teamId}&since=${new Date(D - 2 * DAY).toISOString()}&until=${new Date(D - DAY).toISOString()}`, { token: owner.token });
    expect([...empty.body.stats].sort(byProjectAndSlug)).toEqual(
      [
        { project_id: busy.project.id, ...zero("alpha") },
        { project_id: busy.project.id, ...zero("beta") },
        { project_id: busy.project.id, ...zero("delta") },
        { project_id: busy.project.id, ...zero("gamma") },
        { project_id: appless.id, ...zero("lonely") },
      ].sort(byProjectAndSlug),
    );
    expect(await http.get(`/v1/metric-stats?team_id=${randomUUID()}&${inside}`, { token: owner.token })).toMatchObject({ status: 200, body: { stats: [] } });
  });
});
