import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp, createProject, projectWithApp, uniqueSlug } from "../support/catalog.ts";
import { anEvent, ingest } from "../support/events.ts";
import { client, type Client, type HttpResponse } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { startTestService, startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * A revoked credential stops working at once: on the API instance that made the revocation, the
 * very next request is refused; on a second API instance (same NATS namespace, same database),
 * which learns it from the facts, a request made at most one second later is refused too.
 * Ingest, import and agent keys are cached per instance, so these also hold the caches to it.
 */

let service: TestService;
let second: TestService;
let http: Client;
let other: Client;
let owner: SignedIn;

/** How long the second instance may take to learn a revocation. */
const OTHER_INSTANCE_MS = 1_000;
const POLL_MS = 50;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  second = await startTestService({ ...service.config, port: 0 }, ["api"]);
  other = client(second.baseUrl);
});
afterAll(async () => {
  await second?.close();
  await stopTestService(service);
});

type Send = (via: Client) => Promise<HttpResponse>;
type Refusal = { status: 401 | 403; error: string };

const ingestWith = (key: string, app: { bundle_id: string | null }): Send => (via) => ingest(via, key, { bundle_id: app.bundle_id ?? undefined, events: [anEvent()] });
const importWith = (key: string): Send => (via) => via.post("/v1/import", { events: [anEvent()] }, { token: key });
const INVALID_KEY: Refusal = { status: 401, error: "invalid API key" };

async function ok(answer: Promise<HttpResponse>, what: string): Promise<any> {
  const response = await answer;
  if (response.status < 200 || response.status > 299) throw new Error(`${what} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A new key of the owner's team made through the API (201). */
const createKey = (body: Record<string, unknown>, token = owner.token) =>
  ok(http.post("/v1/auth/keys", { name: "Revocation test", ...body }, { token }), "create key").then((created) => created.api_key);

/**
 * The credential works on both instances (twice each, so each has it cached where keys are
 * cached), `revoke` is made through the first, and then: the first refuses the very next request;
 * the second refuses a request sent at most one second after the revocation's answer; neither
 * accepts it again afterwards.
 */
async function expectRevokedOnBothInstances(send: Send, revoke: () => Promise<unknown>, refusal: Refusal): Promise<void> {
  for (const via of [http, other, http, other]) expect((await send(via)).status).toBe(200);
  await revoke();
  const revokedAt = performance.now();
  expect(await send(http)).toMatchObject({ status: refusal.status, body: { error: refusal.error } });

  let answer: HttpResponse;
  let sentAfterMs: number;
  do {
    sentAfterMs = performance.now() - revokedAt;
    answer = await send(other);
    if (answer.status !== 200) break;
    await sleep(POLL_MS);
  } while (performance.now() - revokedAt <= OTHER_INSTANCE_MS);
  expect(answer.status, `the second instance still accepted the credential ${Math.round(sentAfterMs)} ms after the revocation`).toBe(refusal.status);
  expect(answer.body).toEqual({ error: refusal.error });
  for (const via of [http, other]) expect((await send(via)).status).toBe(refusal.status);
}

describe("a revoked ingest or import key is refused at once on every API instance", () => {
  it("after its project is deleted", async () => {
    const { project, app, clientKey } = await projectWithApp(http, owner.token, owner.teamId);
    await expectRevokedOnBothInstances(ingestWith(clientKey, app), () => ok(http.delete(`/v1/projects/${project.id}`, { token: owner.token }), "delete project"), INVALID_KEY);
  });

  it("after its app is deleted", async () => {
    const { app, clientKey } = await projectWithApp(http, owner.token, owner.teamId);
    await expectRevokedOnBothInstances(ingestWith(clientKey, app), () => ok(http.delete(`/v1/apps/${app.id}`, { token: owner.token }), "delete app"), INVALID_KEY);
  });

  it.each(["client", "import"] as const)("after the %s key itself is deleted", async (keyType) => {
    const { app } = await projectWithApp(http, owner.token, owner.teamId);
    const key = await createKey({ key_type: keyType, app_id: app.id });
    const send = keyType === "client" ? ingestWith(key.secret, app) : importWith(key.secret);
    await expectRevokedOnBothInstances(send, () => ok(http.delete(`/v1/auth/keys/${key.id}`, { token: owner.token }), "delete key"), INVALID_KEY);
  });

  it("after its team is deleted", async () => {
    const team = await ok(http.post("/v1/teams", { name: "Doomed team", slug: uniqueSlug("doomed") }, { token: owner.token }), "create team");
    const project = await createProject(http, owner.token, team.id);
    const app = await createApp(http, owner.token, project.id);
    await expectRevokedOnBothInstances(ingestWith(app.client_secret, app), () => ok(http.delete(`/v1/teams/${team.id}`, { token: owner.token }), "delete team"), INVALID_KEY);
  });

  it("after it loses events:write", async () => {
    const { app } = await projectWithApp(http, owner.token, owner.teamId);
    const key = await createKey({ key_type: "client", app_id: app.id });
    await expectRevokedOnBothInstances(
      ingestWith(key.secret, app),
      () => ok(http.patch(`/v1/auth/keys/${key.id}`, { permissions: ["users:write"] }, { token: owner.token }), "change key"),
      { status: 403, error: "requires the events:write permission" },
    );
  });

  it("once it expires", async () => {
    // Keys expire in whole days; the clock of this process (both instances run in it) is moved
    // to just before the expiry, then just past it.
    const { app } = await projectWithApp(http, owner.token, owner.teamId);
    const key = await createKey({ key_type: "client", app_id: app.id, expires_in_days: 1 });
    const expiresAt = Date.parse(key.expires_at);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    try {
      vi.setSystemTime(expiresAt - 2_000);
      await expectRevokedOnBothInstances(ingestWith(key.secret, app), async () => vi.setSystemTime(expiresAt + 1), { status: 401, error: "API key expired" });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("a revoked agent key is refused at once on every API instance", () => {
  const agentKey = (body: Record<string, unknown> = {}) => createKey({ key_type: "agent", team_id: owner.teamId, name: `agent-${randomBytes(3).toString("hex")}`, ...body });
  const listProjectsWith = (secret: string): Send => (via) => via.get(`/v1/projects?team_id=${owner.teamId}`, { token: secret });

  it("after it is deleted", async () => {
    const key = await agentKey();
    await expectRevokedOnBothInstances(listProjectsWith(key.secret), () => ok(http.delete(`/v1/auth/keys/${key.id}`, { token: owner.token }), "delete key"), INVALID_KEY);
  });

  it("after it loses projects:read", async () => {
    const key = await agentKey();
    await expectRevokedOnBothInstances(
      listProjectsWith(key.secret),
      () => ok(http.patch(`/v1/auth/keys/${key.id}`, { permissions: ["events:read"] }, { token: owner.token }), "change key"),
      { status: 403, error: "requires the projects:read permission" },
    );
  });

  it("after its team is deleted", async () => {
    const team = await ok(http.post("/v1/teams", { name: "Doomed team", slug: uniqueSlug("doomed") }, { token: owner.token }), "create team");
    const key = await createKey({ key_type: "agent", team_id: team.id, name: "doomed agent" });
    const listTeamProjects: Send = (via) => via.get(`/v1/projects?team_id=${team.id}`, { token: key.secret });
    await expectRevokedOnBothInstances(listTeamProjects, () => ok(http.delete(`/v1/teams/${team.id}`, { token: owner.token }), "delete team"), INVALID_KEY);
  });

  it("once it expires", async () => {
    const key = await agentKey({ expires_in_days: 1 });
    const expiresAt = Date.parse(key.expires_at);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    try {
      vi.setSystemTime(expiresAt - 2_000);
      await expectRevokedOnBothInstances(listProjectsWith(key.secret), async () => vi.setSystemTime(expiresAt + 1), { status: 401, error: "API key expired" });
    } finally {
      vi.useRealTimers();
    }
  });

  it("after its creator is removed from the team with revoke_agent_keys", async () => {
    const admin = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "admin" });
    const key = await createKey({ key_type: "agent", team_id: owner.teamId, name: `agent-${randomBytes(3).toString("hex")}` }, admin.token);
    const listProjects: Send = (via) => via.get(`/v1/projects?team_id=${owner.teamId}`, { token: key.secret });
    await expectRevokedOnBothInstances(
      listProjects,
      async () => {
        const removed = await ok(http.delete(`/v1/teams/${owner.teamId}/members/${admin.userId}?revoke_agent_keys=true`, { token: owner.token }), "remove member");
        expect(removed).toEqual({ removed: true, revoked_agent_keys: 1 });
      },
      INVALID_KEY,
    );
  });
});
