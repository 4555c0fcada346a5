import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replay } from "../../projections/_runtime/replay.ts";
import { projectionNamed } from "../../projections/registry.ts";
import { createProject } from "../support/catalog.ts";
import { anError, type Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { replayDeps } from "../support/replay.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * The integration resource through HTTP: the provider registry, create with webhook_setup, masking,
 * one active integration per (project, provider), restore after delete, PATCH merging and
 * validating, the webhook setup read, every route's permission rule, the audit log (keys only,
 * never values), and `replay integrations` rebuilding identical rows, the secret included.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let member: SignedIn;
let stranger: SignedIn;

const API_KEY = "sk_test_9f8e7d6c5b4a";
const config = { api_key: API_KEY, project_id: "proj1ab2c3d4" };

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
  stranger = await signIn(http, service.outbox);
});
afterAll(() => stopTestService(service));

const base = (projectId: string) => `/v1/projects/${projectId}/integrations`;
const newProject = async () => (await createProject(http, owner.token, owner.teamId)).id as string;

async function agentKeyWith(permissions: string[]): Promise<string> {
  const response = await http.post("/v1/auth/keys", { name: "agent", key_type: "agent", team_id: owner.teamId, permissions }, { token: owner.token });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.api_key.secret;
}

async function created(projectId: string, body: Record<string, unknown> = { provider: "subprov", config }) {
  const response = await http.post(base(projectId), body, { token: owner.token });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

describe("the provider registry", () => {
  it("lists subprov with its config fields to members and to keys holding integrations:read", async () => {
    const projectId = await newProject();
    const response = await http.get(`${base(projectId)}/providers`, { token: member.token });
    expect(response.status).toBe(200);
    const [provider] = response.body.providers;
    expect(provider).toMatchObject({ id: "subprov", name: expect.any(String), description: expect.any(String) });
    expect(provider.configFields.map((field: any) => [field.key, field.required, field.sensitive])).toEqual([
      ["api_key", true, true],
      ["project_id", true, false],
      ["environment", false, false],
    ]);
    for (const field of provider.configFields) expect(Object.keys(field).sort()).toEqual(["description", "key", "label", "placeholder", "required", "sensitive"]);
    expect((await http.get(`${base(projectId)}/providers`, { token: await agentKeyWith(["integrations:read"]) })).status).toBe(200);
    expect(await http.get(`${base(projectId)}/providers`, { token: await agentKeyWith(["projects:read"]) })).toMatchObject({ status: 403, body: anError });
    expect(await http.get(`${base(projectId)}/providers`, { token: stranger.token })).toMatchObject({ status: 404, body: anError });
  });
});

describe("creating", () => {
  it("answers the integration with masked config and the webhook setup, and keeps the secret out of config", async () => {
    const projectId = await newProject();
    const body = await created(projectId, { provider: "subprov", config: { ...config, environment: "sandbox" } });
    expect(body).toMatchObject({
      id: expect.any(String),
      project_id: projectId,
      provider: "subprov",
      config: { api_key: "sk_t****", project_id: "proj1ab2c3d4", environment: "sandbox" },
      enabled: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      webhook_setup: {
        webhook_url: `${service.config.publicBaseUrl}/v1/webhooks/subprov/${projectId}`,
        authorization_header: expect.stringMatching(/^Bearer [A-Za-z0-9_-]{32}$/),
        environment: "sandbox",
        events_filter: "INITIAL_PURCHASE,RENEWAL,PRODUCT_CHANGE,UNCANCELLATION,CANCELLATION,BILLING_ISSUE,EXPIRATION,TRANSFER",
      },
    });
    const secret = body.webhook_setup.authorization_header.slice("Bearer ".length);
    expect(Object.keys(body.config).sort()).toEqual(["api_key", "environment", "project_id"]);

    const list = await http.get(base(projectId), { token: member.token });
    expect(list).toMatchObject({ status: 200, body: { integrations: [{ id: body.id, config: { api_key: "sk_t****" } }] } });
    const one = await http.get(`${base(projectId)}/subprov`, { token: member.token });
    expect(one.body).toEqual(list.body.integrations[0]);
    for (const text of [JSON.stringify(list.body), JSON.stringify(one.body)]) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(secret);
    }
  });

  it("refuses unsupported providers and configs that do not match the provider's fields", async () => {
    const projectId = await newProject();
    for (const body of [
      { provider: "stripe", config },
      { provider: "subprov", config: { ...config, webhook_secret: "mine" } },
      { provider: "subprov", config: { project_id: "proj1" } },
      { provider: "subprov", config: { ...config, api_key: "  " } },
      { provider: "subprov", config: { ...config, api_key: 42 } },
      { provider: "subprov", config: { ...config, environment: "staging" } },
      { provider: "subprov" },
    ]) {
      expect(await http.post(base(projectId), body, { token: owner.token }), JSON.stringify(body)).toMatchObject({ status: 400, body: anError });
    }
    expect((await http.get(base(projectId), { token: owner.token })).body.integrations).toEqual([]);
  });

  it("allows one active integration per (project, provider), and restores a deleted one with the new config and a new secret", async () => {
    const projectId = await newProject();
    const first = await created(projectId);
    expect(await http.post(base(projectId), { provider: "subprov", config }, { token: owner.token })).toMatchObject({ status: 409, body: anError });
    expect(await http.delete(`${base(projectId)}/subprov`, { token: owner.token })).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await http.get(base(projectId), { token: owner.token })).body.integrations).toEqual([]);
    expect((await http.delete(`${base(projectId)}/subprov`, { token: owner.token })).status).toBe(404);
    expect((await http.get(`${base(projectId)}/subprov/webhook-setup`, { token: owner.token })).status).toBe(404);
    expect((await http.patch(`${base(projectId)}/subprov`, { enabled: false }, { token: owner.token })).status).toBe(404);

    const restored = await created(projectId, { provider: "subprov", config: { api_key: "sk_live_new_key", project_id: "proj2" } });
    expect(restored).toMatchObject({ id: first.id, config: { api_key: "sk_l****", project_id: "proj2" }, enabled: true });
    expect(restored.webhook_setup.authorization_header).not.toBe(first.webhook_setup.authorization_header);
  });
});

describe("the webhook setup", () => {
  it("shows the same secret every time to admins and keys with integrations:read, and not to members", async () => {
    const projectId = await newProject();
    const body = await created(projectId);
    const read = await http.get(`${base(projectId)}/subprov/webhook-setup`, { token: owner.token });
    expect(read).toMatchObject({ status: 200, body: { webhook_setup: body.webhook_setup } });
    expect((await http.get(`${base(projectId)}/subprov/webhook-setup`, { token: await agentKeyWith(["integrations:read"]) })).body).toEqual(read.body);
    expect(await http.get(`${base(projectId)}/subprov/webhook-setup`, { token: member.token })).toMatchObject({ status: 403, body: anError });
    expect(await http.get(`${base(projectId)}/subprov/webhook-setup`, { token: await agentKeyWith(["integrations:write"]) })).toMatchObject({ status: 403 });
    expect((await http.get(`${base(await newProject())}/subprov/webhook-setup`, { token: owner.token })).status).toBe(404);
  });
});

describe("changing", () => {
  it("merges config over the stored one, validates the merge and answers without the webhook setup", async () => {
    const projectId = await newProject();
    const before = await created(projectId);
    const patched = await http.patch(`${base(projectId)}/subprov`, { config: { environment: "sandbox" } }, { token: owner.token });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toEqual({ ...before, webhook_setup: undefined, config: { ...before.config, environment: "sandbox" }, updated_at: expect.any(String) });
    expect(patched.body).not.toHaveProperty("webhook_setup");

    // A client echoing the masked key keeps the stored one.
    const echoed = await http.patch(`${base(projectId)}/subprov`, { config: { api_key: "sk_t****", project_id: "proj9" } }, { token: owner.token });
    expect(echoed.body.config).toEqual({ api_key: "sk_t****", project_id: "proj9", environment: "sandbox" });

    for (const body of [{ config: { project_id: "" } }, { config: { region: "eu" } }, { config: { environment: "dev" } }, { enabled: "no" }]) {
      expect(await http.patch(`${base(projectId)}/subprov`, body, { token: owner.token }), JSON.stringify(body)).toMatchObject({ status: 400, body: anError });
    }
    expect(await http.patch(`${base(projectId)}/stripe`, { enabled: false }, { token: owner.token })).toMatchObject({ status: 400, body: anError });
    expect((await http.patch(`${base(projectId)}/subprov`, { enabled: false }, { token: owner.token })).body).toMatchObject({ enabled: false });
    expect((await http.get(base(projectId), { token: owner.token })).body.integrations).toMatchObject([{ enabled: false }]);
  });

  it("lets admins and keys with integrations:write change integrations, and nobody else", async () => {
    const projectId = await newProject();
    expect(await http.post(base(projectId), { provider: "subprov", config }, { token: member.token })).toMatchObject({ status: 403, body: anError });
    expect(await http.post(base(projectId), { provider: "subprov", config }, { token: await agentKeyWith(["integrations:read"]) })).toMatchObject({ status: 403 });
    expect(await http.post(base(projectId), { provider: "subprov", config }, { token: stranger.token })).toMatchObject({ status: 404 });
    const writer = await agentKeyWith(["integrations:write"]);
    expect((await http.post(base(projectId), { provider: "subprov", config }, { token: writer })).status).toBe(201);
    expect((await http.patch(`${base(projectId)}/subprov`, { enabled: false }, { token: member.token })).status).toBe(403);
    expect((await http.patch(`${base(projectId)}/subprov`, { enabled: false }, { token: writer })).status).toBe(200);
    expect((await http.delete(`${base(projectId)}/subprov`, { token: member.token })).status).toBe(403);
    expect((await http.delete(`${base(projectId)}/subprov`, { token: stranger.token })).status).toBe(404);
    expect((await http.delete(`${base(projectId)}/subprov`, { token: writer })).status).toBe(200);
  });
});

describe("the audit log and replay", () => {
  it("records creation, changes and deletion by key name only, and replay rebuilds identical rows", async () => {
    const projectId = await newProject();
    const body = await created(projectId);
    const secret = body.webhook_setup.authorization_header.slice("Bearer ".length);
    await http.patch(`${base(projectId)}/subprov`, { config: { api_key: "sk_rotated_key_1" }, enabled: false }, { token: owner.token });
    await http.delete(`${base(projectId)}/subprov`, { token: owner.token });
    await created(projectId);

    const audit = await http.get(`/v1/teams/${owner.teamId}/audit-logs?resource_type=integration`, { token: owner.token });
    const mine = audit.body.audit_logs.filter((entry: any) => entry.resource_id === body.id);
    expect(mine.map((entry: any) => entry.action).sort()).toEqual(["create", "create", "delete", "update"]);
    const update = mine.find((entry: any) => entry.action === "update");
    expect(update.changes).toEqual({ "config.api_key": { after: "changed" }, enabled: { before: true, after: false } });
    const text = JSON.stringify(audit.body);
    for (const hidden of [API_KEY, "sk_rotated_key_1", secret]) expect(text).not.toContain(hidden);

    const admin = new pg.Client({ connectionString: service.databaseUrl });
    await admin.connect();
    try {
      const snapshot = async () => {
        const rows: Record<string, string[]> = {};
        for (const table of ["integrations", "integration_versions"]) {
          rows[table] = (await admin.query<{ row: string }>(`select to_jsonb(t)::text as row from public.${table} t`)).rows.map((row) => row.row).sort();
        }
        return rows;
      };
      const before = await snapshot();
      expect(before.integrations!.length).toBeGreaterThan(3);
      await replay(replayDeps(service), projectionNamed("integrations"));
      expect(await snapshot()).toEqual(before);
      expect((await http.get(`${base(projectId)}/subprov/webhook-setup`, { token: owner.token })).status).toBe(200);
    } finally {
      await admin.end();
    }
  });
});
