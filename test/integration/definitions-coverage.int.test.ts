import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { append } from "../../streams/append.ts";
import { createProject } from "../support/catalog.ts";
import { anError, type Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * Metric and funnel definitions through HTTP: the audit entries of each change (read back through
 * the audit-log route), who may read and write funnels, lookups by id across teams, and the
 * validation of funnel slugs and of steps on PATCH.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
});
afterAll(async () => stopTestService(service));

const STEPS = [
  { name: "Open", event_filter: { step_name: "open" } },
  { name: "Pay", event_filter: { screen_name: "Payment" } },
];
const stepsOf = (count: number) => Array.from({ length: count }, (_, index) => ({ name: `S${index}`, event_filter: { step_name: `s${index}` } }));

const auditOf = async (query: string) => {
  const answer = await http.get(`/v1/teams/${owner.teamId}/audit-logs?${query}`, { token: owner.token });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};

/** An audit entry as the route shows it, with the fields every entry of this file shares. */
const entry = (fields: { action: string; resource_type: string; resource_id: string; changes?: unknown; metadata?: unknown; actor?: { type: string; id: string } }) => ({
  id: expect.any(String),
  team_id: owner.teamId,
  actor_type: fields.actor?.type ?? "user",
  actor_id: fields.actor?.id ?? owner.userId,
  action: fields.action,
  resource_type: fields.resource_type,
  resource_id: fields.resource_id,
  changes: fields.changes ?? null,
  metadata: fields.metadata ?? null,
  timestamp: expect.any(String),
});

/** An agent key of `teamId` created by `token`; without `permissions` it holds every agent permission. */
const agentKey = async (teamId: string, permissions: string[] | undefined, token = owner.token) => {
  const created = await http.post("/v1/auth/keys", { name: permissions?.join(" ") ?? "all", key_type: "agent", team_id: teamId, permissions }, { token });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.api_key as { id: string; secret: string };
};

describe("audit entries of definitions", () => {
  it("records a metric's create, update, delete and restore, newest first, with changes and metadata", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const base = `/v1/projects/${project.id}/metrics`;
    const token = owner.token;
    const created = await http.post(base, { name: "Checkout", slug: "checkout", description: "v1" }, { token });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const patched = await http.patch(`${base}/checkout`, { name: "Checkout", description: "v2", aggregation_rules: { p95: true } }, { token });
    expect(patched.status).toBe(200);
    // Nothing differs: no entry.
    expect((await http.patch(`${base}/checkout`, { description: "v2" }, { token })).status).toBe(200);
    expect(await http.delete(`${base}/checkout`, { token })).toMatchObject({ status: 200, body: { deleted: true } });
    const restored = await http.post(base, { name: "Checkout again", slug: "checkout" }, { token });
    expect(restored.status).toBe(201);
    expect(restored.body.id).toBe(id);

    const logs = await auditOf(`resource_type=metric_definition&resource_id=${id}`);
    expect(logs).toEqual({
      audit_logs: [
        entry({ action: "create", resource_type: "metric_definition", resource_id: id, metadata: { project_id: project.id, slug: "checkout", name: "Checkout again", restored: true } }),
        entry({ action: "delete", resource_type: "metric_definition", resource_id: id, metadata: { slug: "checkout" } }),
        entry({
          action: "update",
          resource_type: "metric_definition",
          resource_id: id,
          changes: { description: { before: "v1", after: "v2" }, aggregation_rules: { before: null, after: { p95: true } } },
        }),
        entry({ action: "create", resource_type: "metric_definition", resource_id: id, metadata: { project_id: project.id, slug: "checkout", name: "Checkout", restored: false } }),
      ],
      cursor: null,
      has_more: false,
    });
    const times = logs.audit_logs.map((log: { timestamp: string }) => Date.parse(log.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect((await auditOf(`resource_type=metric_definition&resource_id=${id}&action=create`)).audit_logs.map((log: any) => log.metadata.restored)).toEqual([true, false]);
    expect((await auditOf(`resource_type=funnel_definition&resource_id=${id}`)).audit_logs).toEqual([]);
  });

  it("records a funnel's create (by an agent key), update and delete; a new funnel under the old slug is a new resource", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const base = `/v1/projects/${project.id}/funnels`;
    const writer = await agentKey(owner.teamId, ["funnels:write"]);
    const created = await http.post(base, { name: "Purchase", slug: "purchase", steps: STEPS }, { token: writer.secret });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const newSteps = [STEPS[1]!];
    expect((await http.patch(`${base}/purchase`, { name: "Purchase", description: "paid", steps: newSteps }, { token: owner.token })).status).toBe(200);
    expect(await http.delete(`${base}/purchase`, { token: owner.token })).toMatchObject({ status: 200, body: { deleted: true } });
    const again = await http.post(base, { name: "Purchase 2", slug: "purchase", steps: stepsOf(3) }, { token: owner.token });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(id);

    expect(await auditOf(`resource_type=funnel_definition&resource_id=${id}`)).toEqual({
      audit_logs: [
        entry({ action: "delete", resource_type: "funnel_definition", resource_id: id, metadata: { slug: "purchase" } }),
        entry({
          action: "update",
          resource_type: "funnel_definition",
          resource_id: id,
          changes: { description: { before: null, after: "paid" }, steps: { before: STEPS, after: newSteps } },
        }),
        entry({
          action: "create",
          resource_type: "funnel_definition",
          resource_id: id,
          actor: { type: "api_key", id: writer.id },
          metadata: { project_id: project.id, slug: "purchase", name: "Purchase", steps: 2 },
        }),
      ],
      cursor: null,
      has_more: false,
    });
    expect((await auditOf(`resource_type=funnel_definition&resource_id=${again.body.id}`)).audit_logs).toEqual([
      entry({ action: "create", resource_type: "funnel_definition", resource_id: again.body.id, metadata: { project_id: project.id, slug: "purchase", name: "Purchase 2", steps: 3 } }),
    ]);
    expect((await auditOf(`resource_type=metric_definition&resource_id=${id}`)).audit_logs).toEqual([]);
    expect((await auditOf(`resource_type=funnel_definition&actor_id=${writer.id}`)).audit_logs.map((log: any) => log.resource_id)).toEqual([id]);
  });
});

describe("funnel definition access", () => {
  let project: any;
  let base: string;
  let funnelId: string;
  let member: SignedIn;
  let admin: SignedIn;
  let stranger: SignedIn;

  beforeAll(async () => {
    project = await createProject(http, owner.token, owner.teamId);
    base = `/v1/projects/${project.id}/funnels`;
    const created = await http.post(base, { name: "Access", slug: "access", steps: STEPS }, { token: owner.token });
    expect(created.status).toBe(201);
    funnelId = created.body.id;
    member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    admin = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "admin" });
    stranger = await signIn(http, service.outbox);
  });

  /** Status of each route of the funnel family for one caller (writes aim at throwaway slugs). */
  async function statuses(token: string | undefined, label: string) {
    const slug = `${label}-${randomUUID().slice(0, 8)}`;
    const post = await http.post(base, { name: "F", slug, steps: STEPS }, { token });
    const target = post.status === 201 ? slug : "access";
    return {
      list: (await http.get(base, { token })).status,
      get: (await http.get(`${base}/access`, { token })).status,
      byId: (await http.get(`/v1/funnels/by-id/${funnelId}`, { token })).status,
      query: (await http.get(`${base}/access/query`, { token })).status,
      post: post.status,
      patch: (await http.patch(`${base}/${target}`, { description: `by ${label}` }, { token })).status,
      delete: (await http.delete(`${base}/${target}`, { token })).status,
    };
  }

  it("answers each kind of caller as its permission or role allows", async () => {
    const read = await agentKey(owner.teamId, ["funnels:read"]);
    const write = await agentKey(owner.teamId, ["funnels:write"]);
    const both = await agentKey(owner.teamId, ["funnels:read", "funnels:write"]);
    const metricsOnly = await agentKey(owner.teamId, ["metrics:read", "metrics:write"]);
    const all = { list: 200, get: 200, byId: 200, query: 200, post: 201, patch: 200, delete: 200 };
    const readOnly = { list: 200, get: 200, byId: 200, query: 200, post: 403, patch: 403, delete: 403 };
    const forbidden = { list: 403, get: 403, byId: 403, query: 403, post: 403, patch: 403, delete: 403 };
    const hidden = { list: 404, get: 404, byId: 404, query: 404, post: 404, patch: 404, delete: 404 };
    expect({
      owner: await statuses(owner.token, "owner"),
      admin: await statuses(admin.token, "admin"),
      member: await statuses(member.token, "member"),
      stranger: await statuses(stranger.token, "stranger"),
      readKey: await statuses(read.secret, "read"),
      writeKey: await statuses(write.secret, "write"),
      bothKey: await statuses(both.secret, "both"),
      metricsKey: await statuses(metricsOnly.secret, "metrics"),
      strangerKey: await statuses((await agentKey(stranger.teamId, undefined, stranger.token)).secret, "stranger-key"),
      anonymous: await statuses(undefined, "anonymous"),
    }).toEqual({
      owner: all,
      admin: all,
      member: readOnly,
      stranger: hidden,
      readKey: readOnly,
      writeKey: { list: 403, get: 403, byId: 403, query: 403, post: 201, patch: 200, delete: 200 },
      bothKey: all,
      metricsKey: forbidden,
      // Another team's key with every agent permission: the project is not its team's.
      strangerKey: hidden,
      anonymous: { list: 401, get: 401, byId: 401, query: 401, post: 401, patch: 401, delete: 401 },
    });
    // The refused writes changed nothing.
    expect((await http.get(`${base}/access`, { token: owner.token })).body).toMatchObject({ id: funnelId, description: null, steps: STEPS });
    expect((await http.get(base, { token: owner.token })).body.funnels.map((funnel: { slug: string }) => funnel.slug)).toEqual(["access"]);
  });

  it("lists team-wide funnels only with a team_id the caller can see", async () => {
    const reader = await agentKey(owner.teamId, ["funnels:read"]);
    const ids = async (token: string, teamId: string) => {
      const answer = await http.get(`/v1/funnels?team_id=${teamId}`, { token });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.funnels.map((funnel: { id: string; project_id: string }) => [funnel.id, funnel.project_id]);
    };
    expect(await ids(owner.token, owner.teamId)).toContainEqual([funnelId, project.id]);
    expect(await ids(member.token, owner.teamId)).toContainEqual([funnelId, project.id]);
    expect(await ids(reader.secret, owner.teamId)).toContainEqual([funnelId, project.id]);
    expect(await http.get(`/v1/funnels?team_id=${owner.teamId}`, { token: stranger.token })).toMatchObject({ status: 200, body: { funnels: [] } });
    expect(await http.get(`/v1/funnels?team_id=${randomUUID()}`, { token: owner.token })).toMatchObject({ status: 200, body: { funnels: [] } });
    const strangerKey = await agentKey(stranger.teamId, ["funnels:read"], stranger.token);
    expect(await http.get(`/v1/funnels?team_id=${owner.teamId}`, { token: strangerKey.secret })).toMatchObject({ status: 200, body: { funnels: [] } });
    expect(await http.get("/v1/funnels", { token: owner.token })).toMatchObject({ status: 400, body: anError });
    expect(await http.get("/v1/funnels?team_id=not-a-team", { token: owner.token })).toMatchObject({ status: 400, body: anError });
    expect(await http.get(`/v1/funnels?team_id=${owner.teamId}`, { token: (await agentKey(owner.teamId, ["metrics:read"])).secret })).toMatchObject({
      status: 403,
      body: anError,
    });
  });

  it("answers 404 by id for another team's metric and funnel definitions", async () => {
    const theirs = await createProject(http, stranger.token, stranger.teamId);
    const metric = await http.post(`/v1/projects/${theirs.id}/metrics`, { name: "Theirs", slug: "theirs" }, { token: stranger.token });
    const funnel = await http.post(`/v1/projects/${theirs.id}/funnels`, { name: "Theirs", slug: "theirs", steps: STEPS }, { token: stranger.token });
    expect([metric.status, funnel.status]).toEqual([201, 201]);
    // Their own owner reads them: the ids are real.
    expect((await http.get(`/v1/metrics/by-id/${metric.body.id}`, { token: stranger.token })).body).toMatchObject({ id: metric.body.id, slug: "theirs" });
    expect((await http.get(`/v1/funnels/by-id/${funnel.body.id}`, { token: stranger.token })).body).toMatchObject({ id: funnel.body.id, slug: "theirs" });
    const ourKey = await agentKey(owner.teamId, ["metrics:read", "funnels:read"]);
    for (const token of [owner.token, member.token, ourKey.secret]) {
      expect(await http.get(`/v1/metrics/by-id/${metric.body.id}`, { token })).toMatchObject({ status: 404, body: anError });
      expect(await http.get(`/v1/funnels/by-id/${funnel.body.id}`, { token })).toMatchObject({ status: 404, body: anError });
    }
    // Unknown ids are 404 as well, malformed ones 400.
    expect(await http.get(`/v1/funnels/by-id/${randomUUID()}`, { token: owner.token })).toMatchObject({ status: 404, body: anError });
    expect(await http.get(`/v1/metrics/by-id/${randomUUID()}`, { token: owner.token })).toMatchObject({ status: 404, body: anError });
    expect(await http.get("/v1/funnels/by-id/nope", { token: owner.token })).toMatchObject({ status: 400, body: anError });
  });
});

describe("funnel validation", () => {
  it("answers 400 to slugs outside ^[a-z0-9-]+$ and creates none of them", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const base = `/v1/projects/${project.id}/funnels`;
    for (const slug of ["Bad Slug", "UPPER", "under_score", "dot.ted", "", "ünï"]) {
      expect(await http.post(base, { name: "F", slug, steps: STEPS }, { token: owner.token }), JSON.stringify(slug)).toMatchObject({ status: 400, body: anError });
    }
    expect(await http.post(base, { name: "F", steps: STEPS }, { token: owner.token })).toMatchObject({ status: 400, body: anError });
    expect((await http.post(base, { name: "F", slug: "ok-1-2", steps: STEPS }, { token: owner.token })).status).toBe(201);
    expect((await http.get(base, { token: owner.token })).body.funnels.map((funnel: { slug: string }) => funnel.slug)).toEqual(["ok-1-2"]);
    expect(await http.get(`${base}/Bad%20Slug`, { token: owner.token })).toMatchObject({ status: 400, body: anError });
  });

  it("answers 400 to a PATCH with 0 or 21 steps and keeps the funnel as it was; 20 steps are fine", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const base = `/v1/projects/${project.id}/funnels`;
    const created = await http.post(base, { name: "Steps", slug: "steps", steps: STEPS }, { token: owner.token });
    expect(created.status).toBe(201);
    for (const steps of [[], stepsOf(21), [{ name: "x", event_filter: {} }], [{ name: "", event_filter: { step_name: "a" } }]]) {
      expect(await http.patch(`${base}/steps`, { steps }, { token: owner.token }), `${steps.length} steps`).toMatchObject({ status: 400, body: anError });
    }
    expect(await http.patch(`${base}/steps`, { name: "Renamed", steps: [] }, { token: owner.token })).toMatchObject({ status: 400, body: anError });
    expect((await http.get(`${base}/steps`, { token: owner.token })).body).toMatchObject({ name: "Steps", steps: STEPS, updated_at: created.body.updated_at });
    expect((await auditOf(`resource_type=funnel_definition&resource_id=${created.body.id}`)).audit_logs.map((log: any) => log.action)).toEqual(["create"]);

    const twenty = await http.patch(`${base}/steps`, { steps: stepsOf(20) }, { token: owner.token });
    expect(twenty.status).toBe(200);
    expect(twenty.body.steps).toEqual(stepsOf(20));
  });
});

describe("definition limits that match derived events", () => {
  it("takes slugs of up to 100 characters and step filters of up to 255, as metric and step events may carry", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const post = (kind: string, body: unknown) => http.post(`/v1/projects/${project.id}/${kind}`, body, { token: owner.token });
    expect((await post("metrics", { name: "Long", slug: "m".repeat(100) })).status).toBe(201);
    expect(await post("metrics", { name: "Longer", slug: "m".repeat(101) })).toMatchObject({ status: 400, body: anError });
    const steps = [{ name: "Long", event_filter: { step_name: "s".repeat(255), screen_name: "c".repeat(255) } }];
    expect((await post("funnels", { name: "Long", slug: "f".repeat(100), steps })).status).toBe(201);
    const tooLong = [{ name: "Longer", event_filter: { step_name: "s".repeat(256) } }];
    expect(await post("funnels", { name: "Longer", slug: "longer", steps: tooLong })).toMatchObject({ status: 400, body: anError });
  });
});

describe("text Postgres cannot store", () => {
  it("answers 400 to a NUL or an unpaired surrogate anywhere in a body, and the team's next writes go through", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const metrics = `/v1/projects/${project.id}/metrics`;
    const funnels = `/v1/projects/${project.id}/funnels`;
    const raw = (path: string, json: string, method = "POST") =>
      http.call(method, path, { rawBody: json, token: owner.token, headers: { "content-type": "application/json" } });
    expect(await raw(metrics, '{"name":"n","slug":"nul","description":"a\\u0000b"}')).toMatchObject({ status: 400, body: { error: "body.description: must not contain NUL characters or unpaired UTF-16 surrogates" } });
    expect(await raw(metrics, '{"name":"u\\ud800","slug":"surrogate"}')).toMatchObject({ status: 400, body: anError });
    expect(await raw(funnels, '{"name":"f","slug":"f","steps":[{"name":"s","event_filter":{"step_name":"a\\u0000"}}]}')).toMatchObject({ status: 400, body: anError });
    expect(await raw(`/v1/teams/${owner.teamId}`, '{"name":"T\\u0000"}', "PATCH")).toMatchObject({ status: 400, body: anError });
    const deep = `${"[".repeat(200_000)}"\\u0000"${"]".repeat(200_000)}`;
    expect(await raw(metrics, `{"name":"n","slug":"deep","description":${deep}}`)).toMatchObject({ status: 400, body: anError });
    // Escaped text that only looks alike, and a paired surrogate (an emoji), are ordinary text.
    const fine = await raw(metrics, '{"name":"ok \\\\u0000 \\ud83d\\udca5","slug":"fine"}');
    expect(fine).toMatchObject({ status: 201, body: { name: "ok \\u0000 💥", slug: "fine" } });
    expect((await http.get(`${metrics}/nul`, { token: owner.token })).status).toBe(404);
    expect((await http.post(metrics, { name: "After", slug: "after" }, { token: owner.token })).status).toBe(201);
  });

  it("goes on taking a team's commands after a fact on its subject was parked as unappliable", async () => {
    const created = await http.post("/v1/teams", { name: "Parked", slug: `parked-${randomUUID().slice(0, 8)}` }, { token: owner.token });
    expect(created.status).toBe(201);
    const teamId: string = created.body.id;
    const subject = service.log.names.aggregateSubject("team", teamId);
    await append(service.log, subject, "not a domain envelope", { msgId: randomUUID() });
    const renamed = await http.patch(`/v1/teams/${teamId}`, { name: "Parked, then renamed" }, { token: owner.token });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect((await http.get(`/v1/teams/${teamId}`, { token: owner.token })).body).toMatchObject({ name: "Parked, then renamed" });
  });
});
