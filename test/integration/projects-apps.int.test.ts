import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyCreatedFact, keySecret } from "../../domain/keys/decider.ts";
import { PALETTE } from "../../domain/projects/settings.ts";
import { newId, randomToken } from "../../domain/shared/ids.ts";
import { append } from "../../streams/append.ts";
import { createApp, createProject, projectWithApp, uniqueSlug } from "../support/catalog.ts";
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

const auditOf = (resourceId: string) =>
  service.pool.any(sql.unsafe`
    select action, resource_type, changes, actor_type from audit_logs where resource_id = ${resourceId} order by "timestamp", id`);

describe("projects", () => {
  it("creates a project with palette colour, overrides and effective values", async () => {
    const first = await createProject(http, owner.token, owner.teamId, { name: "Web", retention_days_metrics: 90 });
    expect(first).toMatchObject({
      team_id: owner.teamId,
      name: "Web",
      color: expect.stringMatching(/^#[0-9A-F]{6}$/),
      retention_days_events: null,
      retention_days_metrics: 90,
      effective_retention_days_events: 120,
      effective_retention_days_metrics: 90,
      effective_retention_days_funnels: 365,
      attachment_user_quota_bytes: null,
      effective_attachment_user_quota_bytes: 262144000,
      effective_attachment_project_quota_bytes: 5368709120,
      issue_alert_frequency: null,
      effective_issue_alert_frequency: "daily",
      created_at: expect.any(String),
    });
    expect(PALETTE).toContain(first.color);
    const second = await createProject(http, owner.token, owner.teamId);
    expect(second.color).not.toBe(first.color);
  });

  it("validates creation input", async () => {
    const post = (body: Record<string, unknown>) => http.post("/v1/projects", body, { token: owner.token });
    const valid = { team_id: owner.teamId, name: "P", slug: uniqueSlug() };
    expect(await post({ ...valid, color: "#000000" })).toMatchObject({ status: 400, body: anError });
    expect(await post({ ...valid, slug: "Not A Slug" })).toMatchObject({ status: 400, body: anError });
    expect(await post({ name: "P", slug: uniqueSlug() })).toMatchObject({ status: 400, body: anError });
    expect(await post({ ...valid, retention_days_events: 1.5 })).toMatchObject({ status: 400, body: anError });
    expect((await http.post("/v1/projects", valid)).status).toBe(401);
    const stranger = await signIn(http, service.outbox);
    expect(await http.post("/v1/projects", valid, { token: stranger.token })).toMatchObject({ status: 404, body: { error: "team not found" } });
  });

  it("answers 409 for an active slug and lets one of many parallel creates win", async () => {
    const slug = uniqueSlug();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => http.post("/v1/projects", { team_id: owner.teamId, name: "Race", slug }, { token: owner.token })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const listed = await http.get(`/v1/projects?team_id=${owner.teamId}`, { token: owner.token });
    expect(listed.body.projects.filter((project: { slug: string }) => project.slug === slug)).toHaveLength(1);
  });

  it("reads one project with its apps and lists by team", async () => {
    const { project, app } = await projectWithApp(http, owner.token, owner.teamId);
    const one = await http.get(`/v1/projects/${project.id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: project.id, slug: project.slug, apps: [{ id: app.id, client_secret: app.client_secret }] });
    const listed = await http.get(`/v1/projects?team_id=${owner.teamId}`, { token: owner.token });
    expect(listed.body.projects.map((p: { id: string }) => p.id)).toContain(project.id);
    expect(listed.body.projects[0].apps).toBeUndefined();
    const stranger = await signIn(http, service.outbox);
    expect((await http.get(`/v1/projects/${project.id}`, { token: stranger.token })).status).toBe(404);
    expect((await http.get(`/v1/projects?team_id=${owner.teamId}`, { token: stranger.token })).body).toEqual({ projects: [] });
    expect((await http.get("/v1/projects/not-a-uuid", { token: owner.token })).status).toBe(400);
  });

  it("patches settings, resets overrides with null and records before/after", async () => {
    const project = await createProject(http, owner.token, owner.teamId, { retention_days_events: 30 });
    const patch = (body: unknown) => http.patch(`/v1/projects/${project.id}`, body, { token: owner.token });
    expect(await patch({})).toMatchObject({ status: 400, body: anError });
    expect(await patch({ color: "red" })).toMatchObject({ status: 400, body: anError });
    expect(await patch({ issue_alert_frequency: "monthly" })).toMatchObject({ status: 400, body: anError });
    expect(await patch({ attachment_user_quota_bytes: -1 })).toMatchObject({ status: 400, body: anError });
    const changed = await patch({
      name: "Renamed",
      color: "#12abEF",
      retention_days_events: null,
      attachment_project_quota_bytes: 1000,
      issue_alert_frequency: "6_hourly",
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      name: "Renamed",
      color: "#12ABEF",
      retention_days_events: null,
      effective_retention_days_events: 120,
      attachment_project_quota_bytes: 1000,
      effective_attachment_project_quota_bytes: 1000,
      issue_alert_frequency: "6_hourly",
      effective_issue_alert_frequency: "6_hourly",
    });
    const reset = await patch({ issue_alert_frequency: null });
    expect(reset.body).toMatchObject({ issue_alert_frequency: null, effective_issue_alert_frequency: "daily" });
    const audit = await auditOf(project.id);
    expect(audit.map((row) => row.action)).toEqual(["create", "update", "update"]);
    expect(audit[1]!.changes).toMatchObject({
      name: { before: "Project", after: "Renamed" },
      retention_days_events: { before: 30, after: null },
      issue_alert_frequency: { before: null, after: "6_hourly" },
    });
  });

  it("deletes with cascade to apps and keys, and re-creating the slug hard-deletes the old project", async () => {
    const { project, app, clientKey } = await projectWithApp(http, owner.token, owner.teamId);
    expect((await http.get("/v1/auth/whoami", { token: clientKey })).status).toBe(200);
    expect(await http.delete(`/v1/projects/${project.id}`, { token: owner.token })).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await http.get(`/v1/projects/${project.id}`, { token: owner.token })).status).toBe(404);
    expect((await http.get(`/v1/apps/${app.id}`, { token: owner.token })).status).toBe(404);
    expect((await http.get("/v1/auth/whoami", { token: clientKey })).status).toBe(401);
    expect((await http.delete(`/v1/projects/${project.id}`, { token: owner.token })).status).toBe(404);

    const again = await createProject(http, owner.token, owner.teamId, { slug: project.slug });
    expect(again.id).not.toBe(project.id);
    const old = await service.pool.anyFirst(sql.unsafe`select id from projects where id = ${project.id}`);
    expect(old).toEqual([]);
    expect((await auditOf(project.id)).map((row) => row.action)).toEqual(["create", "delete"]);
  });

  it("goes with its team when the team is deleted", async () => {
    const team = await http.post("/v1/teams", { name: "Short-lived", slug: uniqueSlug("team") }, { token: owner.token });
    const { project, clientKey } = await projectWithApp(http, owner.token, team.body.id);
    expect((await http.delete(`/v1/teams/${team.body.id}`, { token: owner.token })).status).toBe(200);
    expect((await http.get(`/v1/projects/${project.id}`, { token: owner.token })).status).toBe(404);
    expect((await http.get("/v1/auth/whoami", { token: clientKey })).status).toBe(401);
    const rows = await service.pool.any(sql.unsafe`select deleted_at from apps where project_id = ${project.id}`);
    expect(rows).toEqual([{ deleted_at: expect.any(String) }]);
  });
});

describe("apps", () => {
  it("creates apps with a client key; backend apps have no bundle", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const apple = await createApp(http, owner.token, project.id, { bundle_id: "com.example.shop" });
    expect(apple).toMatchObject({
      team_id: owner.teamId,
      project_id: project.id,
      platform: "apple",
      bundle_id: "com.example.shop",
      client_secret: expect.stringMatching(/^svc_client_/),
      worldwide_average_rating: null,
      worldwide_rating_count_delta: null,
      ratings_synced_at: null,
    });
    const backend = await createApp(http, owner.token, project.id, { platform: "backend", bundle_id: "ignored" });
    expect(backend.bundle_id).toBeNull();
    expect((await createApp(http, owner.token, project.id, { platform: "backend", bundle_id: "" })).bundle_id).toBeNull();
    const whoami = await http.get("/v1/auth/whoami", { token: apple.client_secret });
    expect(whoami.body).toMatchObject({ type: "api_key", key_type: "client", permissions: ["events:write", "users:write"] });

    const post = (body: Record<string, unknown>) => http.post("/v1/apps", body, { token: owner.token });
    expect(await post({ name: "A", platform: "android", project_id: project.id })).toMatchObject({ status: 400, body: anError });
    expect(await post({ name: "A", platform: "web", project_id: project.id, bundle_id: " " })).toMatchObject({ status: 400, body: { error: "bundle_id: required for web apps" } });
    expect(await post({ name: "A", platform: "symbian", project_id: project.id, bundle_id: "x" })).toMatchObject({ status: 400 });
    expect(await post({ name: "A", platform: "web", project_id: crypto.randomUUID(), bundle_id: "x" })).toMatchObject({ status: 404 });
    const listed = await http.get(`/v1/apps?team_id=${owner.teamId}`, { token: owner.token });
    expect(listed.body.apps.map((app: { id: string }) => app.id)).toEqual(expect.arrayContaining([apple.id, backend.id]));
  });

  it("changes only the name", async () => {
    const { app } = await projectWithApp(http, owner.token, owner.teamId);
    const patch = (body: unknown) => http.patch(`/v1/apps/${app.id}`, body, { token: owner.token });
    expect(await patch({ name: "New", bundle_id: "com.other" })).toMatchObject({ status: 400, body: anError });
    expect(await patch({ name: "New", platform: "web" })).toMatchObject({ status: 400, body: anError });
    expect(await patch({})).toMatchObject({ status: 400, body: anError });
    const renamed = await patch({ name: "New", bundle_id: app.bundle_id, project_id: app.project_id.toUpperCase() });
    expect(renamed).toMatchObject({ status: 200, body: { id: app.id, name: "New", bundle_id: app.bundle_id } });
    expect((await auditOf(app.id)).map((row) => [row.action, row.changes])).toEqual([
      ["create", null],
      ["update", { name: { before: "App", after: "New" } }],
    ]);
  });

  it("soft-deletes an app and its keys", async () => {
    const { app, clientKey } = await projectWithApp(http, owner.token, owner.teamId);
    const importKey = await http.post("/v1/auth/keys", { name: "imp", key_type: "import", app_id: app.id }, { token: owner.token });
    expect(importKey.status).toBe(201);
    expect(await http.delete(`/v1/apps/${app.id}`, { token: owner.token })).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await http.get("/v1/auth/whoami", { token: clientKey })).status).toBe(401);
    expect((await http.get("/v1/auth/whoami", { token: importKey.body.api_key.secret })).status).toBe(401);
    const rows = await service.pool.any(sql.unsafe`select deleted_at from apps where id = ${app.id}`);
    expect(rows).toEqual([{ deleted_at: expect.any(String) }]);
  });
});

describe("races", () => {
  it("never leaves an active app in a project deleted while apps were being created", async () => {
    const project = await createProject(http, owner.token, owner.teamId);
    const creates = Array.from({ length: 5 }, (_, index) =>
      http.post("/v1/apps", { name: `a${index}`, platform: "web", bundle_id: "example.com", project_id: project.id }, { token: owner.token }),
    );
    const [deleted, ...answers] = await Promise.all([http.delete(`/v1/projects/${project.id}`, { token: owner.token }), ...creates]);
    expect(deleted.status).toBe(200);
    for (const answer of answers) expect([201, 404]).toContain(answer.status);
    const orphans = await service.pool.anyFirst(sql.unsafe`
      select a.id from apps a join projects p on p.id = a.project_id where a.deleted_at is null and p.deleted_at is not null`);
    expect(orphans).toEqual([]);
  });
});

describe("api keys", () => {
  it("answers 401 to an expired key", async () => {
    const { app } = await projectWithApp(http, owner.token, owner.teamId);
    // A key whose expiry has passed: its creation fact is appended as if made long ago.
    const key = keyCreatedFact(
      owner.teamId,
      {
        keyId: newId(),
        secret: keySecret("client", randomToken(24)),
        keyType: "client",
        appId: app.id,
        name: "old",
        createdBy: owner.userId,
        expiresAt: new Date(Date.now() - 1_000).toISOString(),
      },
      ["events:write"],
    );
    const envelope = { id: newId(), at: new Date().toISOString(), actor: { type: "user", id: owner.userId }, events: [key] };
    await append(service.log, service.log.names.aggregateSubject("team", owner.teamId), JSON.stringify(envelope), { msgId: envelope.id });
    let answer = await http.get("/v1/auth/whoami", { token: key.secret });
    for (let attempt = 0; attempt < 50 && !/expired/.test(answer.body.error); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await http.get("/v1/auth/whoami", { token: key.secret });
    }
    expect(answer).toMatchObject({ status: 401, body: { error: "API key expired" } });
  });

  it("creates each key type with its defaults, prefix and expiry", async () => {
    const { app } = await projectWithApp(http, owner.token, owner.teamId);
    const post = (body: Record<string, unknown>) => http.post("/v1/auth/keys", body, { token: owner.token });
    const clientKey = await post({ name: "c", key_type: "client", app_id: app.id, expires_in_days: 30 });
    expect(clientKey.status).toBe(201);
    expect(clientKey.body.api_key).toMatchObject({
      secret: expect.stringMatching(/^svc_client_/),
      key_type: "client",
      app_id: app.id,
      team_id: owner.teamId,
      created_by: owner.userId,
      permissions: ["events:write", "users:write"],
      last_used_at: null,
    });
    const expiresIn = Date.parse(clientKey.body.api_key.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(29 * 86_400_000);
    expect(expiresIn).toBeLessThanOrEqual(30 * 86_400_000);

    const agent = await post({ name: "a", key_type: "agent", team_id: owner.teamId, permissions: ["projects:read", "events:read"] });
    expect(agent.body.api_key).toMatchObject({ key_type: "agent", app_id: null, permissions: ["events:read", "projects:read"], expires_at: null });
    expect(agent.body.api_key.secret).toMatch(/^svc_agent_/);
    const imported = await post({ name: "i", key_type: "import", app_id: app.id });
    expect(imported.body.api_key.secret).toMatch(/^svc_import_/);

    expect(await post({ name: "c", key_type: "client" })).toMatchObject({ status: 400, body: anError });
    expect(await post({ name: "a", key_type: "agent" })).toMatchObject({ status: 400, body: anError });
    expect(await post({ name: "c", key_type: "client", app_id: app.id, permissions: ["events:read"] })).toMatchObject({ status: 400 });
    expect(await post({ name: "a", key_type: "agent", team_id: owner.teamId, permissions: ["events:write"] })).toMatchObject({ status: 400 });
    expect(await post({ name: "x", key_type: "root", team_id: owner.teamId })).toMatchObject({ status: 400 });
    expect(await post({ name: "c", key_type: "client", app_id: app.id, expires_in_days: 0 })).toMatchObject({ status: 400 });
  });

  it("lists keys with full secrets, creator email and app name, and reads one", async () => {
    const { app } = await projectWithApp(http, owner.token, owner.teamId, { name: "Listed app" });
    const listed = await http.get(`/v1/auth/keys?team_id=${owner.teamId}`, { token: owner.token });
    expect(listed.status).toBe(200);
    const clientKey = listed.body.api_keys.find((key: { app_id: string }) => key.app_id === app.id);
    expect(clientKey).toMatchObject({ secret: app.client_secret, created_by_email: owner.email, app_name: "Listed app", key_type: "client" });
    const one = await http.get(`/v1/auth/keys/${clientKey.id}`, { token: owner.token });
    expect(one.body.api_key).toMatchObject({ id: clientKey.id, secret: app.client_secret });
    expect(one.body.api_key.created_by_email).toBeUndefined();
    const stranger = await signIn(http, service.outbox);
    expect((await http.get(`/v1/auth/keys/${clientKey.id}`, { token: stranger.token })).status).toBe(404);
    expect((await http.get(`/v1/auth/keys?team_id=${owner.teamId}`, { token: stranger.token })).body).toEqual({ api_keys: [] });
  });

  it("updates, deletes, and keeps last_used_at fresh", async () => {
    const created = await http.post("/v1/auth/keys", { name: "ops", key_type: "agent", team_id: owner.teamId }, { token: owner.token });
    const key = created.body.api_key;
    const patch = (body: unknown) => http.patch(`/v1/auth/keys/${key.id}`, body, { token: owner.token });
    expect(await patch({})).toMatchObject({ status: 400, body: anError });
    expect(await patch({ permissions: ["events:write"] })).toMatchObject({ status: 400, body: anError });
    const updated = await patch({ name: "ops 2", permissions: ["audit_logs:read"] });
    expect(updated.body.api_key).toMatchObject({ name: "ops 2", permissions: ["audit_logs:read"] });
    expect((await http.get(`/v1/projects`, { token: key.secret })).status).toBe(403);
    expect((await http.get(`/v1/teams/${owner.teamId}/audit-logs`, { token: key.secret })).status).toBe(200);

    for (let attempt = 0; attempt < 100; attempt += 1) {
      const listed = await http.get(`/v1/auth/keys/${key.id}`, { token: owner.token });
      if (listed.body.api_key.last_used_at !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const used = (await http.get(`/v1/auth/keys/${key.id}`, { token: owner.token })).body.api_key.last_used_at;
    expect(Date.parse(used)).toBeGreaterThan(Date.parse(key.created_at));

    expect(await http.delete(`/v1/auth/keys/${key.id}`, { token: owner.token })).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await http.get("/v1/auth/whoami", { token: key.secret })).status).toBe(401);
    expect((await http.get(`/v1/auth/keys/${key.id}`, { token: owner.token })).status).toBe(404);
    const audit = await auditOf(key.id);
    expect(audit.map((row) => row.action)).toEqual(["create", "update", "delete"]);
    expect(audit[1]!.changes).toMatchObject({ name: { before: "ops", after: "ops 2" } });
  });

  it("lets members read keys but only admins manage them", async () => {
    const member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    const listed = await http.get(`/v1/auth/keys?team_id=${owner.teamId}`, { token: member.token });
    expect(listed.status).toBe(200);
    const someKey = listed.body.api_keys[0];
    expect(await http.post("/v1/auth/keys", { name: "m", key_type: "agent", team_id: owner.teamId }, { token: member.token })).toMatchObject({
      status: 403,
    });
    expect((await http.patch(`/v1/auth/keys/${someKey.id}`, { name: "m" }, { token: member.token })).status).toBe(403);
    expect((await http.delete(`/v1/auth/keys/${someKey.id}`, { token: member.token })).status).toBe(403);
  });
});
