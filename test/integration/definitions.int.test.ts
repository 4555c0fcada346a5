import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProject } from "../support/catalog.ts";
import { anError, type Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

let service: TestService;
let http: Client;
let owner: SignedIn;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
});
afterAll(async () => stopTestService(service));

const auditActions = (id: string) =>
  service.pool.anyFirst(sql.unsafe`select action from audit_logs where resource_id = ${id} order by "timestamp", id`);

describe("metric definitions", () => {
  it("creates, reads, lists, updates and deletes", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const base = `/v1/projects/${project.id}/metrics`;
    const token = owner.token;
    const created = await http.post(base, { name: "Checkout", slug: "checkout", schema_definition: { type: "object" } }, { token });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.any(String),
      project_id: project.id,
      name: "Checkout",
      slug: "checkout",
      description: null,
      documentation: null,
      schema_definition: { type: "object" },
      aggregation_rules: null,
    });
    expect(await http.post(base, { name: "Again", slug: "checkout" }, { token })).toMatchObject({ status: 409, body: anError });
    expect(await http.post(base, { name: "Bad", slug: "Bad Slug" }, { token })).toMatchObject({ status: 400, body: anError });
    expect(await http.post(base, { slug: "no-name" }, { token })).toMatchObject({ status: 400, body: anError });

    expect((await http.get(`${base}/checkout`, { token })).body.id).toBe(created.body.id);
    expect((await http.get(`/v1/metrics/by-id/${created.body.id}`, { token })).body.slug).toBe("checkout");
    expect((await http.get(base, { token })).body.metrics.map((m: { slug: string }) => m.slug)).toEqual(["checkout"]);
    const teamWide = await http.get(`/v1/metrics?team_id=${owner.teamId}`, { token });
    expect(teamWide.body.metrics).toEqual(expect.arrayContaining([expect.objectContaining({ id: created.body.id, project_id: project.id })]));
    expect((await http.get("/v1/metrics", { token })).status).toBe(400);
    // Ids are UUIDs, equal in any letter case.
    expect((await http.get(`/v1/metrics?team_id=${owner.teamId.toUpperCase()}`, { token })).body).toEqual(teamWide.body);

    expect(await http.patch(`${base}/checkout`, {}, { token })).toMatchObject({ status: 400 });
    const patched = await http.patch(`${base}/checkout`, { description: "Orders placed", aggregation_rules: { p95: true } }, { token });
    expect(patched.body).toMatchObject({ description: "Orders placed", aggregation_rules: { p95: true }, schema_definition: { type: "object" } });

    expect(await http.delete(`${base}/checkout`, { token })).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await http.get(`${base}/checkout`, { token })).status).toBe(404);
    expect((await http.get(base, { token })).body.metrics).toEqual([]);
    expect(await auditActions(created.body.id)).toEqual(["create", "update", "delete"]);
  });

  it("restores a soft-deleted metric with the same id when its slug is created again", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const base = `/v1/projects/${project.id}/metrics`;
    const first = await http.post(base, { name: "Login", slug: "login", description: "v1" }, { token: owner.token });
    await http.delete(`${base}/login`, { token: owner.token });
    const again = await http.post(base, { name: "Login again", slug: "login" }, { token: owner.token });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: first.body.id, name: "Login again", description: null, created_at: first.body.created_at });
  });

  it("lets one of several parallel creates of a slug win", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, index) => http.post(`/v1/projects/${project.id}/metrics`, { name: `m${index}`, slug: "race" }, { token: owner.token })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it("answers by role, permission and team", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const base = `/v1/projects/${project.id}/metrics`;
    const member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    const stranger = await signIn(http, service.outbox);
    const agent = (await http.post("/v1/auth/keys", { name: "a", key_type: "agent", team_id: owner.teamId, permissions: ["metrics:read"] }, { token: owner.token }))
      .body.api_key.secret;
    expect((await http.get(base, { token: member.token })).status).toBe(200);
    expect((await http.post(base, { name: "m", slug: "m" }, { token: member.token })).status).toBe(403);
    expect((await http.get(base, { token: stranger.token })).status).toBe(404);
    expect((await http.get(`/v1/metrics?team_id=${owner.teamId}`, { token: stranger.token })).body).toEqual({ metrics: [] });
    expect((await http.get(base, { token: agent })).status).toBe(200);
    expect((await http.post(base, { name: "m", slug: "m" }, { token: agent })).status).toBe(403);
  });
});

describe("funnel definitions", () => {
  const steps = [
    { name: "Open", event_filter: { screen_name: "Home" } },
    { name: "Add", event_filter: { step_name: "add_to_cart" } },
  ];

  it("creates, validates steps, updates and deletes", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const base = `/v1/projects/${project.id}/funnels`;
    const token = owner.token;
    const created = await http.post(base, { name: "Purchase", slug: "purchase", steps }, { token });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ project_id: project.id, slug: "purchase", description: null, steps });
    expect(await http.post(base, { name: "P", slug: "purchase", steps }, { token })).toMatchObject({ status: 409 });
    expect(await http.post(base, { name: "P", slug: "none", steps: [] }, { token })).toMatchObject({ status: 400, body: anError });
    const tooMany = Array.from({ length: 21 }, (_, index) => ({ name: `s${index}`, event_filter: { step_name: `s${index}` } }));
    expect(await http.post(base, { name: "P", slug: "many", steps: tooMany }, { token })).toMatchObject({ status: 400 });
    expect(await http.post(base, { name: "P", slug: "empty", steps: [{ name: "x", event_filter: {} }] }, { token })).toMatchObject({ status: 400 });
    expect((await http.post(base, { name: "P", slug: "twenty", steps: tooMany.slice(0, 20) }, { token })).status).toBe(201);

    const patched = await http.patch(`${base}/purchase`, { steps: [steps[1]] }, { token });
    expect(patched.body.steps).toEqual([steps[1]]);
    expect((await http.get(`/v1/funnels/by-id/${created.body.id}`, { token })).body.steps).toEqual([steps[1]]);
    const listed = await http.get(`/v1/funnels?team_id=${owner.teamId}`, { token });
    expect(listed.body.funnels.map((f: { id: string }) => f.id)).toContain(created.body.id);
    expect((await http.get(`/v1/funnels?team_id=${owner.teamId.toUpperCase()}`, { token })).body).toEqual(listed.body);
    expect(await http.delete(`${base}/purchase`, { token })).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await http.get(`${base}/purchase`, { token })).status).toBe(404);
    expect((await http.post(base, { name: "Purchase 2", slug: "purchase", steps }, { token })).status).toBe(201);
    expect(await auditActions(created.body.id)).toEqual(["create", "update", "delete"]);
  });

  it("are deleted with their project", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const funnel = await http.post(`/v1/projects/${project.id}/funnels`, { name: "F", slug: "f", steps }, { token: owner.token });
    const metric = await http.post(`/v1/projects/${project.id}/metrics`, { name: "M", slug: "m" }, { token: owner.token });
    await http.delete(`/v1/projects/${project.id}`, { token: owner.token });
    expect((await http.get(`/v1/funnels/by-id/${funnel.body.id}`, { token: owner.token })).status).toBe(404);
    expect((await http.get(`/v1/metrics/by-id/${metric.body.id}`, { token: owner.token })).status).toBe(404);
  });
});
