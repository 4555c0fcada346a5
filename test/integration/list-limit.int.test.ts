import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getWhen, ingestAll, metricEvent } from "../support/analytics.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent } from "../support/events.ts";
import type { Client } from "../support/http.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * The official SDKs and CLIs send `limit=1000` on every list route: a limit above the route's
 * maximum (200) is served as the maximum, while one below 1 or not a number is still refused.
 * One more event and one more user than fit a page are stored, so the cap shows in the answer;
 * every other list holds at least one item, so its answer cannot be empty by mistake.
 */

const MAX = 200;
let service: TestService;
let http: Client;
let owner: SignedIn;
let target: Awaited<ReturnType<typeof projectWithApp>>;
const sessionId = randomUUID();

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  target = await projectWithApp(http, owner.token, owner.teamId);
  const events = Array.from({ length: MAX + 1 }, (_, index) => anEvent({ session_id: sessionId, user_id: `user-${index}` }));
  await ingestAll(http, target, [...events, metricEvent("checkout", "start", new Date().toISOString(), { user_id: "user-0" })]);
  const metric = await http.post(`/v1/projects/${target.project.id}/metrics`, { name: "Checkout", slug: "checkout" }, { token: owner.token });
  if (metric.status !== 201) throw new Error(`create metric answered ${metric.status}: ${JSON.stringify(metric.body)}`);
  await getWhen(http, owner.token, `/v1/projects/${target.project.id}/metrics/checkout/events?data_mode=all`, (body) => body.events.length === 1);
  await getWhen(http, owner.token, `/v1/events/count?session_id=${sessionId}&data_mode=all`, (body) => body.count === MAX + 1);
  await getWhen(http, owner.token, `/v1/app-users?project_id=${target.project.id}&data_mode=all&limit=${MAX}`, (body) => body.has_more === true);
});
afterAll(async () => stopTestService(service));

describe("limit above a list's maximum", () => {
  it("serves limit=1000 on GET /v1/events as a full page of 200, and the cursor leads to the rest", async () => {
    const first = await http.get(`/v1/events?session_id=${sessionId}&data_mode=all&limit=1000`, { token: owner.token });
    expect(first.status).toBe(200);
    expect(first.body.events).toHaveLength(MAX);
    expect(first.body.has_more).toBe(true);
    const rest = await http.get(`/v1/events?session_id=${sessionId}&data_mode=all&limit=1000&cursor=${encodeURIComponent(first.body.cursor)}`, {
      token: owner.token,
    });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ has_more: false, cursor: null });
    expect(rest.body.events).toHaveLength(1);
  });

  it("serves limit=1000 on GET /v1/apps/:id/users as a full page of 200", async () => {
    const answer = await http.get(`/v1/apps/${target.app.id}/users?data_mode=all&limit=1000`, { token: owner.token });
    expect(answer.status).toBe(200);
    expect(answer.body.users).toHaveLength(MAX);
    expect(answer.body.has_more).toBe(true);
  });
});

describe("limit on every list route", () => {
  const lists = (): [string, string][] => [
    ["events", `/v1/events?data_mode=all`],
    ["users", `/v1/apps/${target.app.id}/users?data_mode=all`],
    ["users", `/v1/app-users?project_id=${target.project.id}&data_mode=all`],
    ["events", `/v1/projects/${target.project.id}/metrics/checkout/events?data_mode=all`],
    ["audit_logs", `/v1/teams/${owner.teamId}/audit-logs?since=1h`],
  ];

  it("answers limit=1000 with 200 and at most the maximum number of items", async () => {
    for (const [items, path] of lists()) {
      const answer = await http.get(`${path}&limit=1000`, { token: owner.token });
      expect(answer.status, path).toBe(200);
      expect(answer.body[items].length, path).toBeGreaterThan(0);
      expect(answer.body[items].length, path).toBeLessThanOrEqual(MAX);
    }
  });

  it("refuses limit=0, limit=-5, limit=2.5 and limit=abc with 400 naming the field", async () => {
    for (const [, path] of lists()) {
      for (const limit of ["0", "-5", "2.5", "abc"]) {
        const answer = await http.get(`${path}&limit=${limit}`, { token: owner.token });
        expect(answer, `${path} limit=${limit}`).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^limit: /) } });
      }
    }
  });
});
