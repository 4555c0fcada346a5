import { randomUUID } from "node:crypto";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectWithApp } from "../support/catalog.ts";
import { at, DAY, funnelQuery, getWhen, ingestAll, midnightDaysAgo, stepEvent, stepUsers } from "../support/analytics.ts";
import { expectReferenceCounts, randomTouches } from "../support/funnel-reference.ts";
import { anError, type Client } from "../support/http.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * Funnel analytics through HTTP against real NATS and Postgres. A fixed data set of ten users
 * (skipped steps, steps out of order, a tie, wrong screens, development data) is checked against
 * counts worked out by hand for both modes; random data is checked against a reference walk.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let target: { project: any; app: any; clientKey: string };

const B = midnightDaysAgo(5);
const v2 = { app_version: "2.0", environment: "ipados" };
const cart = { screen_name: "Cart" };
const payment = { screen_name: "Payment" };

const STEPS = [
  { name: "Open", event_filter: { step_name: "open" } },
  { name: "Browse", event_filter: { step_name: "browse" } },
  { name: "Cart", event_filter: { step_name: "cart", screen_name: "Cart" } },
  { name: "Pay", event_filter: { screen_name: "Payment" } },
  { name: "Done", event_filter: { step_name: "done" } },
];

const one = { app_version: "1.0" };
const events = [
  // u1 does every step in order.
  stepEvent("open", "u1", at(B, 1, 0), one),
  stepEvent("browse", "u1", at(B, 1, 1), one),
  stepEvent("cart", "u1", at(B, 1, 2), { ...one, ...cart }),
  stepEvent("pay", "u1", at(B, 1, 3), { ...one, ...payment }),
  stepEvent("done", "u1", at(B, 1, 4), one),
  // u2 stops at the cart.
  stepEvent("cart", "u2", at(B, 2, 2), { ...one, ...cart }),
  stepEvent("browse", "u2", at(B, 2, 1), one),
  stepEvent("open", "u2", at(B, 2, 0), one),
  // u3 skips browse: closed keeps them at step 0, open raises them to every step.
  stepEvent("open", "u3", at(B, 3, 0), one),
  stepEvent("cart", "u3", at(B, 3, 1), { ...one, ...cart }),
  stepEvent("done", "u3", at(B, 3, 2), one),
  // u4 browses before opening, then again after: the second browse follows.
  stepEvent("browse", "u4", at(B, 4, 0), one),
  stepEvent("open", "u4", at(B, 4, 1), one),
  stepEvent("browse", "u4", at(B, 4, 2), one),
  // u5 opens and browses at the same instant: not "earlier", so closed stops at step 0.
  stepEvent("open", "u5", at(B, 5, 0), one),
  stepEvent("browse", "u5", at(B, 5, 0), one),
  // u6's cart is on another screen, which matches no step.
  stepEvent("cart", "u6", at(B, 6, 0), { ...one, screen_name: "Home" }),
  stepEvent("open", "u6", at(B, 6, 1), one),
  // u7 only finishes.
  stepEvent("done", "u7", at(B, 7, 0), one),
  // u8 pays on the Payment screen (another step name) after finishing: closed stops at Pay.
  stepEvent("open", "u8", at(B, 8, 0), one),
  stepEvent("browse", "u8", at(B, 8, 1), one),
  stepEvent("cart", "u8", at(B, 8, 2), { ...one, ...cart }),
  stepEvent("done", "u8", at(B, 8, 3), one),
  stepEvent("card-entered", "u8", at(B, 8, 4), { ...one, ...payment }),
  // u9 is development data.
  stepEvent("open", "u9", at(B, 9, 0), { ...one, is_dev: true }),
  stepEvent("browse", "u9", at(B, 9, 1), { ...one, is_dev: true }),
  // u10 runs another version on another device family.
  stepEvent("open", "u10", at(B, 10, 0), v2),
  stepEvent("browse", "u10", at(B, 10, 1), v2),
  // Without a user a step counts for no one.
  { ...stepEvent("open", "nobody", at(B, 11, 0), one), user_id: undefined },
];

const base = () => `/v1/projects/${target.project.id}`;
const analytics = (params = "", slug = "purchase") => funnelQuery(http, owner.token, target.project.id, slug, params);

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  target = await projectWithApp(http, owner.token, owner.teamId);
  const created = await http.post(`${base()}/funnels`, { name: "Purchase", slug: "purchase", steps: STEPS }, { token: owner.token });
  expect(created.status).toBe(201);
  await http.post(`${base()}/funnels`, { name: "Two", slug: "two", steps: STEPS.slice(0, 2) }, { token: owner.token });
  await http.post(`${base()}/funnels`, { name: "Ghost", slug: "ghost", steps: [{ name: "Never", event_filter: { step_name: "never" } }] }, { token: owner.token });
  // Sent newest first, in two requests; the second repeats u1's last step.
  await ingestAll(http, target, [...events].reverse().slice(0, 15));
  await ingestAll(http, target, [...[...events].reverse().slice(15), events[4]!]);
  await getWhen(http, owner.token, `${base()}/funnels/purchase/query?data_mode=all`, (body) => body.analytics.total_users === 10);
});
afterAll(async () => stopTestService(service));

describe("GET /funnels/:slug/query", () => {
  it("counts a closed funnel: each step only after the previous one, strictly later", async () => {
    expect(await analytics("mode=closed")).toEqual({
      funnel: "Purchase",
      mode: "closed",
      total_users: 8,
      steps: [
        { step_index: 0, step_name: "Open", unique_users: 8, percentage: 100, drop_off_count: 0, drop_off_percentage: 0 },
        { step_index: 1, step_name: "Browse", unique_users: 5, percentage: 62.5, drop_off_count: 3, drop_off_percentage: 37.5 },
        { step_index: 2, step_name: "Cart", unique_users: 3, percentage: 37.5, drop_off_count: 2, drop_off_percentage: 40 },
        { step_index: 3, step_name: "Pay", unique_users: 2, percentage: 25, drop_off_count: 1, drop_off_percentage: 33.33 },
        { step_index: 4, step_name: "Done", unique_users: 1, percentage: 12.5, drop_off_count: 1, drop_off_percentage: 50 },
      ],
    });
  });

  it("counts an open funnel by default: earlier steps are raised by users reaching later ones", async () => {
    expect(await analytics()).toEqual({
      funnel: "Purchase",
      mode: "open",
      total_users: 9,
      steps: [
        { step_index: 0, step_name: "Open", unique_users: 9, percentage: 100, drop_off_count: 0, drop_off_percentage: 0 },
        { step_index: 1, step_name: "Browse", unique_users: 8, percentage: 88.89, drop_off_count: 1, drop_off_percentage: 11.11 },
        { step_index: 2, step_name: "Cart", unique_users: 5, percentage: 55.56, drop_off_count: 3, drop_off_percentage: 37.5 },
        { step_index: 3, step_name: "Pay", unique_users: 4, percentage: 44.44, drop_off_count: 1, drop_off_percentage: 20 },
        { step_index: 4, step_name: "Done", unique_users: 4, percentage: 44.44, drop_off_count: 0, drop_off_percentage: 0 },
      ],
    });
  });

  it("breaks down by app version and environment, largest group first", async () => {
    const closed = await analytics("mode=closed&group_by=app_version");
    expect(closed.breakdown.map((row: any) => [row.key, row.value, row.total_users, stepUsers(row)])).toEqual([
      ["app_version", "1.0", 7, [7, 4, 3, 2, 1]],
      ["app_version", "2.0", 1, [1, 1, 0, 0, 0]],
    ]);
    expect(closed.breakdown[1].steps[1]).toEqual({ step_index: 1, step_name: "Browse", unique_users: 1, percentage: 100, drop_off_count: 0, drop_off_percentage: 0 });
    expect(stepUsers(closed)).toEqual([8, 5, 3, 2, 1]);
    const open = await analytics("group_by=environment");
    expect(open.breakdown.map((row: any) => [row.value, stepUsers(row)])).toEqual([
      ["ios", [8, 7, 5, 4, 4]],
      ["ipados", [1, 1, 0, 0, 0]],
    ]);
    expect((await analytics("mode=closed")).breakdown).toBeUndefined();
  });

  it("filters by data mode, environment, version and app", async () => {
    expect(stepUsers(await analytics("mode=closed&data_mode=development"))).toEqual([1, 1, 0, 0, 0]);
    expect(stepUsers(await analytics("mode=closed&data_mode=all"))).toEqual([9, 6, 3, 2, 1]);
    expect(stepUsers(await analytics("mode=closed&environment=ipados"))).toEqual([1, 1, 0, 0, 0]);
    expect(stepUsers(await analytics("mode=open&app_version=1.0"))).toEqual([8, 7, 5, 4, 4]);
    expect(stepUsers(await analytics(`app_id=${target.app.id}`))).toEqual([9, 8, 5, 4, 4]);
    expect(stepUsers(await analytics(`app_id=${randomUUID()}`))).toEqual([0, 0, 0, 0, 0]);
  });

  it("looks back 30 days unless told otherwise", async () => {
    expect(stepUsers(await analytics("since=4d"))).toEqual([0, 0, 0, 0, 0]);
    expect(stepUsers(await analytics(`since=${at(B, 3, 0)}&until=${at(B, 4, 1)}&mode=closed`))).toEqual([2, 0, 0, 0, 0]);
    const empty = await analytics("since=4d");
    expect(empty.steps[1]).toEqual({ step_index: 1, step_name: "Browse", unique_users: 0, percentage: 0, drop_off_count: 0, drop_off_percentage: 0 });
  });

  it("answers one-step funnels and funnels nobody entered", async () => {
    expect(await analytics("", "ghost")).toEqual({
      funnel: "Ghost",
      mode: "open",
      total_users: 0,
      steps: [{ step_index: 0, step_name: "Never", unique_users: 0, percentage: 0, drop_off_count: 0, drop_off_percentage: 0 }],
    });
  });

  it("rejects bad input and unknown funnels", async () => {
    for (const bad of ["mode=strict", "group_by=device_model", "data_mode=x", "since=later", "environment=symbian"]) {
      expect(await http.get(`${base()}/funnels/purchase/query?${bad}`, { token: owner.token }), bad).toMatchObject({ status: 400, body: anError });
    }
    expect(await http.get(`${base()}/funnels/missing/query`, { token: owner.token })).toMatchObject({ status: 404, body: anError });
    const stranger = await signIn(http, service.outbox);
    expect(await http.get(`${base()}/funnels/purchase/query`, { token: stranger.token })).toMatchObject({ status: 404, body: anError });
  });

  it("stores each step event once, however often it was sent", async () => {
    const rows = await service.pool.oneFirst(sql.unsafe`select count(*) from funnel_events where app_id = ${target.app.id}`);
    expect(Number(rows)).toBe(events.length);
  });
});

describe("GET /v1/funnels/completions/count", () => {
  const count = (params: string) => http.get(`/v1/funnels/completions/count?${params}`, { token: owner.token });

  it("sums users who finished and who started, over every funnel", async () => {
    // purchase: finished u1 u3 u7 u8 = 4; started (open or done) = 9. two: finished (browse) 6, started 8. ghost: 0.
    expect((await count(`project_id=${target.project.id}`)).body).toEqual({ count: 10, started: 17 });
    expect((await count(`team_id=${owner.teamId}&app_id=${target.app.id}&data_mode=all`)).body).toEqual({ count: 11, started: 19 });
    expect((await count(`team_id=${randomUUID()}`)).body).toEqual({ count: 0, started: 0 });
    expect(await count("until=never")).toMatchObject({ status: 400, body: anError });
  });
});

describe("random data against a reference walk", () => {
  it("agrees with the reference in both modes", async () => {
    const filters = [{ step_name: "a" }, { step_name: "b" }, { step_name: "c", screen_name: "S" }, { screen_name: "T" }];
    const touches = randomTouches(seededRandom(7).next, midnightDaysAgo(2), {
      events: 400,
      users: 60,
      steps: ["a", "b", "c", "d"],
      minutes: 40,
      screen: (_, random) => (random() < 0.5 ? (random() < 0.5 ? "S" : "T") : null),
    });
    await expectReferenceCounts(http, owner, filters, touches, ["open", "closed"]);
  });
});

describe("retention", () => {
  it("does not serve funnel events older than the project's funnel retention", async () => {
    const other = await projectWithApp(http, owner.token, owner.teamId);
    await http.post(`/v1/projects/${other.project.id}/funnels`, { name: "Kept", slug: "kept", steps: STEPS.slice(0, 1) }, { token: owner.token });
    const now = Date.now();
    await ingestAll(http, other, [stepEvent("open", "old", new Date(now - 10 * DAY).toISOString()), stepEvent("open", "new", new Date(now - 60_000).toISOString())]);
    const path = `/v1/projects/${other.project.id}/funnels/kept/query`;
    await getWhen(http, owner.token, path, (body) => body.analytics.total_users === 2);
    await http.patch(`/v1/projects/${other.project.id}`, { retention_days_funnels: 5 }, { token: owner.token });
    expect((await analytics("", "purchase")).total_users).toBe(9);
    expect((await http.get(path, { token: owner.token })).body.analytics.total_users).toBe(1);
    expect((await http.get(`/v1/funnels/completions/count?project_id=${other.project.id}`, { token: owner.token })).body).toEqual({ count: 1, started: 1 });
  });
});
