import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "../support/http.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

let service: TestService;
let http: Client;
let owner: SignedIn;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  for (const name of ["One", "Two", "Three"]) await http.patch(`/v1/teams/${owner.teamId}`, { name }, { token: owner.token });
});
afterAll(async () => stopTestService(service));

const logs = (query = "", token = owner.token) => http.get(`/v1/teams/${owner.teamId}/audit-logs${query}`, { token });

describe("GET /v1/teams/:teamId/audit-logs", () => {
  it("records sign-up and team changes newest first with before/after changes", async () => {
    const response = await logs();
    expect(response.status).toBe(200);
    const entries = response.body.audit_logs;
    expect(entries[0]).toMatchObject({
      team_id: owner.teamId,
      actor_type: "user",
      actor_id: owner.userId,
      action: "update",
      resource_type: "team",
      resource_id: owner.teamId,
      changes: { name: { before: "Two", after: "Three" } },
    });
    const kinds = entries.map((entry: { action: string; resource_type: string }) => `${entry.action}:${entry.resource_type}`);
    expect(kinds).toEqual(expect.arrayContaining(["create:user", "create:team", "create:team_member"]));
    expect(response.body).toMatchObject({ cursor: null, has_more: false });
  });

  it("filters and pages with a <timestamp>|<id> cursor", async () => {
    const updates = await logs("?action=update&resource_type=team");
    expect(updates.body.audit_logs).toHaveLength(3);
    const first = await logs("?limit=2");
    expect(first.body.has_more).toBe(true);
    expect(first.body.cursor).toMatch(/^\d{4}-.+Z\|[0-9a-f-]{36}$/);
    const rest = await logs(`?limit=200&cursor=${encodeURIComponent(first.body.cursor)}`);
    const all = await logs("?limit=200");
    expect([...first.body.audit_logs, ...rest.body.audit_logs].map((e: { id: string }) => e.id)).toEqual(
      all.body.audit_logs.map((e: { id: string }) => e.id),
    );
    expect((await logs(`?resource_id=${owner.userId}&resource_type=user`)).body.audit_logs).toHaveLength(1);
    expect((await logs(`?actor_id=${owner.userId}&since=1h`)).body.audit_logs.length).toBe(all.body.audit_logs.length);
    expect((await logs("?until=2000-01-01T00:00:00Z")).body.audit_logs).toHaveLength(0);
  });

  it("rejects bad parameters with 400 and outsiders with 404", async () => {
    expect((await logs("?limit=0")).status).toBe(400);
    expect((await logs("?limit=1.5")).status).toBe(400);
    expect((await logs("?cursor=nonsense")).status).toBe(400);
    expect((await logs("?since=yesterday")).status).toBe(400);
    expect((await logs("?action=explode")).status).toBe(400);
    const outsider = await signIn(http, service.outbox);
    expect((await logs("", outsider.token)).status).toBe(404);
    expect((await http.get(`/v1/teams/${owner.teamId}/audit-logs`)).status).toBe(401);
  });

  it("lets an agent key with audit_logs:read of the team read it", async () => {
    const key = await http.post("/v1/auth/default-agent-key", { team_id: owner.teamId }, { token: owner.token });
    const viaKey = await logs("", key.body.secret);
    expect(viaKey.status).toBe(200);
    expect(viaKey.body.audit_logs.some((entry: { resource_type: string }) => entry.resource_type === "api_key")).toBe(true);
    const outsider = await signIn(http, service.outbox);
    expect((await http.get(`/v1/teams/${outsider.teamId}/audit-logs`, { token: key.body.secret })).status).toBe(404);
  });
});
