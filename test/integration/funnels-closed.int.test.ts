import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectWithApp } from "../support/catalog.ts";
import { at, funnelQuery, getWhen, ingestAll, midnightDaysAgo, stepEvent, stepUsers } from "../support/analytics.ts";
import { expectReferenceCounts, randomTouches } from "../support/funnel-reference.ts";
import type { Client } from "../support/http.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * Closed funnels whose steps no event can match twice: there the query settles users who did a
 * middle step both before and after the previous step from first and last times, when that step
 * had no third event, and walks the others. Hand-computed counts cover both, and random data is
 * checked against the reference walk.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let target: { project: any; app: any; clientKey: string };

const B = midnightDaysAgo(3);
const C = { screen_name: "C" };
const two = { app_version: "2.0" };
const STEPS = [
  { name: "A", event_filter: { step_name: "a" } },
  { name: "B", event_filter: { step_name: "b" } },
  { name: "C", event_filter: { step_name: "c", screen_name: "C" } },
  { name: "D", event_filter: { step_name: "d" } },
];

// Times are minutes after B; each user's closed walk is worked out in the comment.
const step = (name: string, user: string, minute: number, fields: Record<string, unknown> = {}) =>
  stepEvent(name, user, at(B, 1, minute), { app_version: "1.0", ...fields });
const events = [
  // v1: a b c d in order: 4.
  step("a", "v1", 0), step("b", "v1", 1), step("c", "v1", 2, C), step("d", "v1", 3),
  // v2: b before and after a; b at 9, then c 10, d 11: 4.
  step("a", "v2", 5), step("b", "v2", 1), step("b", "v2", 9), step("c", "v2", 10, C), step("d", "v2", 11),
  // v3: b at 9, the only c (7) is earlier: 2.
  step("a", "v3", 5), step("b", "v3", 1), step("b", "v3", 9), step("c", "v3", 7, C), step("d", "v3", 20),
  // v4: three b events, the middle one (6) follows a; c 8, d 20: 4 (b's last time, 9, would give 2).
  step("a", "v4", 5, two), step("b", "v4", 1, two), step("b", "v4", 6, two), step("b", "v4", 9, two), step("c", "v4", 8, { ...C, ...two }), step("d", "v4", 20, two),
  // v5: c before and after b; c at 8, d 9: 4.
  step("a", "v5", 5), step("b", "v5", 6), step("c", "v5", 1, C), step("c", "v5", 8, C), step("d", "v5", 3), step("d", "v5", 9),
  // v6: c at 8, the only d (7) is earlier: 3.
  step("a", "v6", 5), step("b", "v6", 6), step("c", "v6", 1, C), step("c", "v6", 8, C), step("d", "v6", 7),
  // v7: b at the same instant as a: 1.
  step("a", "v7", 5), step("b", "v7", 5),
  // v8: a c on another screen matches no step; in order otherwise: 4.
  step("a", "v8", 5), step("b", "v8", 6), step("c", "v8", 7, { screen_name: "Other" }), step("c", "v8", 8, C), step("d", "v8", 9),
  // v9: b before and after a, plus a c of no step (3): walked, b 9, c 10, d 11: 4.
  step("a", "v9", 5, two), step("b", "v9", 1, two), step("b", "v9", 9, two), step("c", "v9", 3, { screen_name: "Other", ...two }), step("c", "v9", 10, { ...C, ...two }), step("d", "v9", 11, two),
  // v10: only d: 0.
  step("d", "v10", 5),
  // v11: skips b and c: 1.
  step("a", "v11", 10), step("d", "v11", 20),
  // v12: a twice, b before and after the first a: b 9, c 10, d 60: 4.
  step("a", "v12", 5), step("a", "v12", 50), step("b", "v12", 1), step("b", "v12", 9), step("c", "v12", 10, C), step("d", "v12", 60),
  // v13: a 5 and b 9 on 1.0, b 6 on 2.0: 2 overall, 2 on 1.0, nothing on 2.0 (no a there).
  step("a", "v13", 5), step("b", "v13", 6, two), step("b", "v13", 9),
];

const base = () => `/v1/projects/${target.project.id}`;
const analytics = (params: string, slug = "steps") => funnelQuery(http, owner.token, target.project.id, slug, params);

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  target = await projectWithApp(http, owner.token, owner.teamId);
  const created = await http.post(`${base()}/funnels`, { name: "Steps", slug: "steps", steps: STEPS }, { token: owner.token });
  expect(created.status).toBe(201);
  await http.post(`${base()}/funnels`, { name: "One", slug: "one", steps: STEPS.slice(0, 1) }, { token: owner.token });
  await ingestAll(http, target, events);
  await getWhen(http, owner.token, `${base()}/funnels/steps/query`, (body) => body.analytics.total_users === 13);
});
afterAll(async () => stopTestService(service));

describe("closed funnels of disjoint steps", () => {
  it("settles steps done before and after the previous one, walking users with more events", async () => {
    // Reached: v1 4, v2 4, v3 2, v4 4, v5 4, v6 3, v7 1, v8 4, v9 4, v11 1, v12 4, v13 2.
    expect(stepUsers(await analytics("mode=closed"))).toEqual([12, 10, 8, 7]);
    // Every step is done by all but v7 and v13 (2 steps); v10 only did the last, which open counts.
    expect(stepUsers(await analytics("mode=open"))).toEqual([13, 13, 11, 11]);
  });

  it("answers a one-step funnel: everyone who did the step", async () => {
    expect(stepUsers(await analytics("mode=closed", "one"))).toEqual([12]);
    expect(stepUsers(await analytics("mode=closed&group_by=app_version", "one"))).toEqual([12]);
  });

  it("breaks the counts down per app version", async () => {
    const closed = await analytics("mode=closed&group_by=app_version");
    expect(closed.breakdown.map((row: any) => [row.value, stepUsers(row)])).toEqual([
      ["1.0", [10, 8, 6, 5]],
      ["2.0", [2, 2, 2, 2]],
    ]);
  });
});

describe("random data against a reference walk", () => {
  it("agrees with the reference for disjoint steps", async () => {
    const filters = [{ step_name: "a" }, { step_name: "b" }, { step_name: "c", screen_name: "S" }, { step_name: "d" }, { step_name: "e" }];
    // Few events per user and step: steps with one, two or three events are all common.
    const touches = randomTouches(seededRandom(11).next, midnightDaysAgo(2), {
      events: 600,
      users: 120,
      steps: ["a", "b", "c", "d", "e"],
      minutes: 30,
      screen: (stepName, random) => (stepName === "c" && random() < 0.8 ? "S" : null),
    });
    await expectReferenceCounts(http, owner, filters, touches, ["closed"]);
  });
});
