import { randomBytes } from "node:crypto";
import pino from "pino";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { subprovSyncSchedule } from "../../apps/worker/jobs/subprov-schedule.ts";
import { replay } from "../../projections/_runtime/replay.ts";
import { projectionNamed } from "../../projections/registry.ts";
import { appUser, identity } from "../support/app-users.ts";
import { createProject, projectWithApp } from "../support/catalog.ts";
import { startFakeSubprov, type FakeCustomer } from "../support/fake-subprov.ts";
import { anError, client, type Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { waitUntil } from "../support/processes.ts";
import { replayDeps } from "../support/replay.ts";
import { startTestService, stopTestService, testConfig, type TestService } from "../support/service.ts";
import { streamHead } from "../support/streams.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * The subscription provider flows against a local fake of its REST API: the single-user sync
 * (retries, unknown subscribers, upstream failures, malformed and slow answers, the
 * entitlements-only fallback), the full sync and the customer backfill as job runs, the webhook
 * (auth, every handled event, idempotency, TRANSFER re-synced in the background) and a log that
 * never shows the api key or the webhook secret.
 */

const API_KEY = `sk_secret_${randomBytes(8).toString("hex")}`;
const PROVIDER_PROJECT = "proj1ab2c3d4";
const DAY = 86_400_000;

let fake: Awaited<ReturnType<typeof startFakeSubprov>>;
let service: TestService;
let http: Client;
let owner: SignedIn;
let projectId: string;
let clientKey: string;
let secret: string;
const logLines: string[] = [];

beforeAll(async () => {
  fake = await startFakeSubprov({ apiKey: API_KEY, projectId: PROVIDER_PROJECT });
  const logger = pino({ level: "debug" }, { write: (line: string) => void logLines.push(line) });
  service = await startTestService(await testConfig({ SUBPROV_BASE_URL: fake.baseUrl, SUBPROV_TIMEOUT_MS: "400" }), undefined, logger);
  http = client(service.baseUrl);
  owner = await signIn(http, service.outbox);
  ({ project: { id: projectId }, clientKey } = await projectWithApp(http, owner.token, owner.teamId));
  const created = await http.post(`/v1/projects/${projectId}/integrations`, { provider: "subprov", config: { api_key: API_KEY, project_id: PROVIDER_PROJECT } }, { token: owner.token });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  secret = created.body.webhook_setup.authorization_header.slice("Bearer ".length);
});
afterAll(async () => {
  await stopTestService(service);
  await fake.close();
});

const now = Date.now();
/** A monthly subscriber on trial: an active `pro` entitlement and one subscription worth `gross` USD so far. */
function trialCustomer(gross = 9.99): FakeCustomer {
  return {
    firstSeenMs: now - 40 * DAY,
    entitlements: {
      pro: { expires_date: new Date(now + 20 * DAY).toISOString(), product_identifier: "pro_monthly", purchase_date: new Date(now - 10 * DAY).toISOString() },
      old: { expires_date: new Date(now - 50 * DAY).toISOString(), product_identifier: "legacy", purchase_date: new Date(now - 80 * DAY).toISOString() },
    },
    subscriptions: [
      {
        product_id: "prod_pro_monthly",
        status: "trialing",
        auto_renewal_status: "will_renew",
        gives_access: true,
        starts_at: now - 10 * DAY,
        current_period_starts_at: now - 10 * DAY,
        current_period_ends_at: now + 20 * DAY,
        gross_usd: gross,
      },
    ],
  };
}

const userId = (label: string) => `${label}-${randomBytes(4).toString("hex")}`;
const syncOne = (user: string, token = owner.token, project = projectId) => http.post(`/v1/projects/${project}/integrations/subprov/sync/${encodeURIComponent(user)}`, {}, { token });
const hook = (body: unknown, authorization = `Bearer ${secret}`, project = projectId) =>
  http.call("POST", `/v1/webhooks/subprov/${project}`, { body, headers: { authorization } });

const revenueRow = z.object({ lifetime_revenue_usd_cents: z.number(), revenue_synced_at: z.string().nullable(), first_seen_at: z.string() });
const revenueOf = (user: string, project = projectId) =>
  service.pool.maybeOne(sql.type(revenueRow)`select lifetime_revenue_usd_cents, revenue_synced_at, first_seen_at from app_users where project_id = ${project} and user_id = ${user}`);

async function knownUser(user: string): Promise<void> {
  expect((await identity(http, clientKey, "/properties", { user_id: user, properties: { plan: "x" } })).status).toBe(200);
}

async function finishedRun(runId: string): Promise<any> {
  return waitUntil(`job run ${runId} to finish`, async () => {
    const run = (await http.get(`/v1/jobs/${runId}`, { token: owner.token })).body.job_run;
    return ["completed", "failed", "cancelled"].includes(run.status) ? run : undefined;
  }, 30_000);
}

describe("POST …/subprov/sync/:userId", () => {
  it("writes the sp_* properties and the lifetime revenue from the subscriber and its subscriptions", async () => {
    const user = userId("sub");
    fake.customers.set(user, trialCustomer(19.98));
    const response = await syncOne(user);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.updated).toBe(true);
    expect(response.body.properties).toMatchObject({
      sp_subscriber: "true",
      sp_status: "trialing",
      sp_will_renew: "true",
      sp_product: "pro_monthly",
      sp_entitlements: "pro",
      sp_period_type: "trial",
      sp_billing_period: "P1M",
      sp_last_purchase: new Date(now - 10 * DAY).toISOString(),
    });
    expect(await revenueOf(user)).toMatchObject({ lifetime_revenue_usd_cents: 1998, revenue_synced_at: expect.any(String) });
    expect((await appUser(http, owner.token, projectId, user)).properties).toMatchObject({ sp_subscriber: "true", sp_period_type: "trial" });
    const calls = fake.callsTo(`/v1/subscribers/${user}`);
    expect(calls.every((call) => call.authorization === `Bearer ${API_KEY}`)).toBe(true);

    const again = await syncOne(user);
    expect(again.body).toMatchObject({ updated: false });
  });

  it("answers 404 for a subscriber the provider does not know, without the v1 call that would create it", async () => {
    const nobody = userId("nobody");
    expect(await syncOne(nobody)).toMatchObject({ status: 404, body: anError });
    expect(fake.callsTo(`/v2/projects/${PROVIDER_PROJECT}/customers/${nobody}`)).toHaveLength(1);
    expect(fake.callsTo(`/v1/subscribers/${nobody}`)).toHaveLength(0);
  });

  it("retries 5xx and 429 answers with backoff, then succeeds", async () => {
    const user = userId("flaky");
    fake.customers.set(user, trialCustomer());
    fake.script(`/v1/subscribers/${user}`, { status: 503, body: { message: "down" } }, { status: 429, body: { message: "slow down" } });
    const response = await syncOne(user);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(fake.callsTo(`/v1/subscribers/${user}`)).toHaveLength(3);
  });

  it("answers 502 naming the provider and status when it keeps failing, sends malformed JSON or answers too slowly", async () => {
    const user = userId("broken");
    fake.customers.set(user, trialCustomer());
    fake.script(`/v1/subscribers/${user}`, { status: 500 }, { status: 500 }, { status: 500 });
    const failing = await syncOne(user);
    expect(failing).toMatchObject({ status: 502, body: anError });
    expect(failing.body.error).toContain("subscription provider");
    expect(failing.body.error).toContain("500");
    expect(fake.callsTo(`/v1/subscribers/${user}`)).toHaveLength(3);

    fake.script(`/v1/subscribers/${user}`, { status: 200, body: "{not json" });
    expect(await syncOne(user)).toMatchObject({ status: 502, body: anError });
    fake.script(`/v1/subscribers/${user}`, { status: 200, body: { subscriber: { entitlements: "none" } } });
    expect(await syncOne(user)).toMatchObject({ status: 502, body: anError });

    const slow = { status: 200, body: { subscriber: {} }, delayMs: 1_500 };
    fake.script(`/v1/subscribers/${user}`, slow, slow, slow);
    const timedOut = await syncOne(user);
    expect(timedOut).toMatchObject({ status: 502 });
    expect(timedOut.body.error).toContain("400 ms");
    for (const answer of [failing, timedOut]) expect(JSON.stringify(answer.body)).not.toContain(API_KEY);
  });

  it("falls back to the entitlements' properties when the subscriptions cannot be read, leaving the revenue as it was", async () => {
    const user = userId("fallback");
    fake.customers.set(user, trialCustomer(5));
    expect((await syncOne(user)).status).toBe(200);
    const before = await revenueOf(user);
    fake.customers.get(user)!.entitlements.pro!.product_identifier = "pro_yearly";
    const failing = `/v2/projects/${PROVIDER_PROJECT}/customers/${user}/subscriptions`;
    fake.script(failing, { status: 500 }, { status: 502 }, { status: 503 });
    const response = await syncOne(user);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ updated: true, properties: { sp_subscriber: "true", sp_status: "active", sp_product: "pro_yearly", sp_period_type: "trial" } });
    expect(await revenueOf(user)).toEqual(before);
  });

  it("moves the revenue with a claim: the claimer keeps the figure synced last", async () => {
    const anonymous = `svc_anon_${randomBytes(6).toString("hex")}`;
    const known = userId("claimer");
    fake.customers.set(anonymous, trialCustomer(4));
    await knownUser(known);
    expect((await syncOne(anonymous)).status).toBe(200);
    const synced = await revenueOf(anonymous);
    expect(synced).toMatchObject({ lifetime_revenue_usd_cents: 400 });
    expect((await identity(http, clientKey, "/claim", { anonymous_id: anonymous, user_id: known })).status).toBe(200);
    expect(await revenueOf(known)).toMatchObject({ lifetime_revenue_usd_cents: 400, revenue_synced_at: synced!.revenue_synced_at });
    expect(await revenueOf(anonymous)).toBeNull();
    // A sync of the claimed id lands on the claimer.
    fake.customers.get(anonymous)!.subscriptions[0]!.gross_usd = 8;
    expect((await syncOne(anonymous)).status).toBe(200);
    expect(await revenueOf(known)).toMatchObject({ lifetime_revenue_usd_cents: 800 });
  });

  it("answers 404 when not configured or disabled, and 403 to members", async () => {
    const other = (await createProject(http, owner.token, owner.teamId)).id;
    expect(await syncOne("anyone", owner.token, other)).toMatchObject({ status: 404, body: anError });
    const member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    expect(await syncOne("anyone", member.token)).toMatchObject({ status: 403, body: anError });
  });
});

describe("POST …/subprov/sync and the subprov_sync job", () => {
  it("answers {synced: 0, total: 0} without identified users, and 404 when disabled", async () => {
    const { project } = await projectWithApp(http, owner.token, owner.teamId);
    const base = `/v1/projects/${project.id}/integrations`;
    expect((await http.post(base, { provider: "subprov", config: { api_key: API_KEY, project_id: PROVIDER_PROJECT } }, { token: owner.token })).status).toBe(201);
    expect(await http.post(`${base}/subprov/sync`, {}, { token: owner.token })).toMatchObject({ status: 200, body: { synced: 0, total: 0 } });
    expect((await http.patch(`${base}/subprov`, { enabled: false }, { token: owner.token })).status).toBe(200);
    expect(await http.post(`${base}/subprov/sync`, {}, { token: owner.token })).toMatchObject({ status: 404, body: anError });
  });

  it("syncs every identified user of the project as a job run with progress", async () => {
    const { project, clientKey: key } = await projectWithApp(http, owner.token, owner.teamId);
    const base = `/v1/projects/${project.id}/integrations`;
    expect((await http.post(base, { provider: "subprov", config: { api_key: API_KEY, project_id: PROVIDER_PROJECT } }, { token: owner.token })).status).toBe(201);
    const paying = userId("job-paying");
    const unknown = userId("job-unknown");
    fake.customers.set(paying, trialCustomer(12.5));
    for (const user of [paying, unknown, `svc_anon_${randomBytes(6).toString("hex")}`]) {
      expect((await identity(http, key, "/properties", { user_id: user, properties: { plan: "x" } })).status).toBe(200);
    }
    const started = await http.post(`${base}/subprov/sync`, {}, { token: owner.token });
    expect(started).toMatchObject({ status: 200, body: { syncing: true, total: 2, job_run_id: expect.any(String) } });
    const run = await finishedRun(started.body.job_run_id);
    expect(run).toMatchObject({ job_type: "subprov_sync", status: "completed", progress: { processed: 2, total: 2 } });
    expect(run.result).toMatchObject({ total: 2, processed: 2, updated: 1, unknown: 1, failed: 0 });
    expect(await revenueOf(paying, project.id)).toMatchObject({ lifetime_revenue_usd_cents: 1250 });
    expect((await appUser(http, owner.token, project.id, paying)).properties).toMatchObject({ plan: "x", sp_subscriber: "true" });
  });
});

describe("the daily schedule", () => {
  it("triggers subprov_sync at 03:00 UTC for every project with an enabled integration, once per firing", async () => {
    const { project: enabled, clientKey: key } = await projectWithApp(http, owner.token, owner.teamId);
    const { project: disabled } = await projectWithApp(http, owner.token, owner.teamId);
    for (const project of [enabled, disabled]) {
      expect((await http.post(`/v1/projects/${project.id}/integrations`, { provider: "subprov", config: { api_key: API_KEY, project_id: PROVIDER_PROJECT } }, { token: owner.token })).status).toBe(201);
    }
    expect((await http.patch(`/v1/projects/${disabled.id}/integrations/subprov`, { enabled: false }, { token: owner.token })).status).toBe(200);
    expect((await identity(http, key, "/properties", { user_id: userId("daily"), properties: { plan: "x" } })).status).toBe(200);

    const schedule = subprovSyncSchedule(service.log, service.pool);
    expect(schedule.pattern).toBe("0 3 * * *");
    await schedule.run();
    await schedule.run();
    const runsOf = async (project: string) =>
      (await http.get(`/v1/teams/${owner.teamId}/jobs?job_type=subprov_sync&project_id=${project}`, { token: owner.token })).body.job_runs;
    const runs = await waitUntil("the scheduled run", async () => {
      const found = await runsOf(enabled.id);
      return found.length > 0 ? found : undefined;
    });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ triggered_by: "schedule", params: { scheduled_at: expect.any(String) } });
    expect((await finishedRun(runs[0].id)).status).toBe("completed");
    expect(await runsOf(disabled.id)).toEqual([]);
  });
});

describe("the subprov_user_backfill job", () => {
  it("creates users for the provider's customers the project does not know, skipping anonymous ids", async () => {
    const { project, clientKey: key } = await projectWithApp(http, owner.token, owner.teamId);
    // A provider project of its own, so the customers other tests add are not listed here.
    const providerProject = `proj_${randomBytes(3).toString("hex")}`;
    const base = `/v1/projects/${project.id}/integrations`;
    expect((await http.post(base, { provider: "subprov", config: { api_key: API_KEY, project_id: providerProject } }, { token: owner.token })).status).toBe(201);
    const known = userId("known");
    const historic = userId("historic");
    const unknownHere = userId("historic");
    expect((await identity(http, key, "/properties", { user_id: known, properties: { plan: "x" } })).status).toBe(200);
    const listed = fake.customersOf(providerProject);
    listed.set(known, trialCustomer());
    listed.set(historic, trialCustomer(30));
    listed.set(unknownHere, { ...trialCustomer(), firstSeenMs: now - 5 * DAY });
    listed.set("$RCAnonymousID:0a1b2c", trialCustomer());

    const triggered = await http.post(`/v1/teams/${owner.teamId}/jobs/trigger`, { job_type: "subprov_user_backfill", project_id: project.id }, { token: owner.token });
    expect(triggered.status, JSON.stringify(triggered.body)).toBe(201);
    const run = await finishedRun(triggered.body.job_run.id);
    expect(run.status, JSON.stringify(run)).toBe("completed");
    expect(run.result).toMatchObject({ customers: 4, created: 2, already_known: 1, anonymous_skipped: 1, failed: 0 });
    expect(await revenueOf(historic, project.id)).toMatchObject({ lifetime_revenue_usd_cents: 3000, first_seen_at: new Date(now - 40 * DAY).toISOString() });
    expect(await revenueOf(unknownHere, project.id)).toMatchObject({ first_seen_at: new Date(now - 5 * DAY).toISOString() });
    expect((await appUser(http, owner.token, project.id, historic)).properties).toMatchObject({ sp_subscriber: "true" });
    expect((await appUser(http, owner.token, project.id, known)).properties).not.toHaveProperty("sp_subscriber");
    expect(await revenueOf("$RCAnonymousID:0a1b2c", project.id)).toBeNull();
    expect(fake.callsTo(`/v2/projects/${providerProject}/customers?limit=100`)).toHaveLength(1);
  });

  it("fails the run, naming the provider and status, when the customer list cannot be read", async () => {
    const { project } = await projectWithApp(http, owner.token, owner.teamId);
    const providerProject = `proj_${randomBytes(3).toString("hex")}`;
    expect((await http.post(`/v1/projects/${project.id}/integrations`, { provider: "subprov", config: { api_key: API_KEY, project_id: providerProject } }, { token: owner.token })).status).toBe(201);
    fake.customersOf(providerProject);
    fake.script(`/v2/projects/${providerProject}/customers`, { status: 500 }, { status: 500 }, { status: 500 });
    const triggered = await http.post(`/v1/teams/${owner.teamId}/jobs/trigger`, { job_type: "subprov_user_backfill", project_id: project.id }, { token: owner.token });
    const run = await finishedRun(triggered.body.job_run.id);
    expect(run).toMatchObject({ status: "failed", error: expect.stringContaining("subscription provider") });
    expect(run.error).toContain("500");
    expect(run.error).not.toContain(API_KEY);
  });
});

describe("POST /v1/webhooks/subprov/:projectId", () => {
  const delivery = (type: string, fields: Record<string, unknown> = {}) => ({
    api_version: "1.0",
    event: { id: randomBytes(8).toString("hex"), type, event_timestamp_ms: Date.now(), environment: "PRODUCTION", ...fields },
  });

  it("refuses unknown projects, bad secrets and malformed deliveries", async () => {
    const other = (await createProject(http, owner.token, owner.teamId)).id;
    expect(await hook(delivery("RENEWAL", { app_user_id: "u" }), `Bearer ${secret}`, other)).toMatchObject({ status: 404, body: anError });
    expect(await hook(delivery("RENEWAL", { app_user_id: "u" }), `Bearer ${secret}x`)).toMatchObject({ status: 401, body: anError });
    expect(await hook(delivery("RENEWAL", { app_user_id: "u" }), "")).toMatchObject({ status: 401, body: anError });
    expect(await hook({ api_version: "1.0" })).toMatchObject({ status: 400, body: anError });
    expect(await hook({ event: { id: "e", type: "RENEWAL" } })).toMatchObject({ status: 400, body: anError });
    expect(await hook(delivery("RENEWAL"))).toMatchObject({ status: 400, body: anError });
    const raw = await http.call("POST", `/v1/webhooks/subprov/${projectId}`, { rawBody: "{oops", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" } });
    expect(raw).toMatchObject({ status: 400, body: anError });
    expect(await hook(delivery("TEST", { app_user_id: "u" }))).toMatchObject({ status: 200, body: { received: true } });
  });

  it("writes each event's properties and revenue onto app_user_id, falling back to original_app_user_id, once per delivery", async () => {
    const user = userId("hooked");
    await knownUser(user);
    const purchase = delivery("INITIAL_PURCHASE", {
      app_user_id: user,
      product_id: "pro_monthly",
      period_type: "TRIAL",
      purchased_at_ms: now,
      entitlement_ids: ["pro"],
      price: 0,
    });
    expect(await hook(purchase)).toMatchObject({ status: 200, body: { received: true } });
    expect((await appUser(http, owner.token, projectId, user)).properties).toMatchObject({
      sp_subscriber: "true",
      sp_status: "active",
      sp_will_renew: "true",
      sp_product: "pro_monthly",
      sp_period_type: "trial",
      sp_entitlements: "pro",
      sp_last_purchase: new Date(now).toISOString(),
    });

    const renewal = delivery("RENEWAL", { app_user_id: null, original_app_user_id: user, product_id: "pro_monthly", period_type: "NORMAL", price: 9.99 });
    expect((await hook(renewal)).status).toBe(200);
    expect(await revenueOf(user)).toMatchObject({ lifetime_revenue_usd_cents: 999 });
    const head = await streamHead(service.log, "INGEST");
    expect(await hook(renewal)).toMatchObject({ status: 200, body: { received: true } });
    expect(await streamHead(service.log, "INGEST")).toBe(head);
    expect(await revenueOf(user)).toMatchObject({ lifetime_revenue_usd_cents: 999 });

    expect((await hook(delivery("CANCELLATION", { app_user_id: user }))).status).toBe(200);
    expect((await appUser(http, owner.token, projectId, user)).properties).toMatchObject({ sp_status: "cancelled", sp_will_renew: "false", sp_subscriber: "true" });
    expect((await hook(delivery("BILLING_ISSUE", { app_user_id: user }))).status).toBe(200);
    expect((await appUser(http, owner.token, projectId, user)).properties).toMatchObject({ sp_status: "billing_issue" });
    expect((await hook(delivery("UNCANCELLATION", { app_user_id: user, product_id: "pro_monthly" }))).status).toBe(200);
    expect((await hook(delivery("PRODUCT_CHANGE", { app_user_id: user, product_id: "pro_monthly", new_product_id: "pro_yearly" }))).status).toBe(200);
    expect((await appUser(http, owner.token, projectId, user)).properties).toMatchObject({ sp_status: "active", sp_will_renew: "true", sp_product: "pro_yearly" });
    expect((await hook(delivery("EXPIRATION", { app_user_id: user }))).status).toBe(200);
    const expired = (await appUser(http, owner.token, projectId, user)).properties;
    expect(expired).toMatchObject({ sp_subscriber: "false", sp_status: "expired", sp_will_renew: "false", plan: "x" });
    expect(expired).not.toHaveProperty("sp_entitlements");

    // Sandbox events of a production integration are acknowledged and ignored.
    expect((await hook(delivery("RENEWAL", { app_user_id: user, environment: "SANDBOX", price: 5 }))).status).toBe(200);
    expect(await revenueOf(user)).toMatchObject({ lifetime_revenue_usd_cents: 999 });
  });

  it("answers a TRANSFER at once and re-syncs its users in the background, dropping the provider's anonymous ids", async () => {
    const from = userId("from");
    const to = userId("to");
    fake.customers.set(from, { ...trialCustomer(), entitlements: {}, subscriptions: [] });
    fake.customers.set(to, trialCustomer(7));
    const transfer = delivery("TRANSFER", { transferred_from: [from, "$RCAnonymousID:ffee"], transferred_to: [to] });
    expect(await hook(transfer)).toMatchObject({ status: 200, body: { received: true } });
    await waitUntil("the transferred users to be re-synced", async () => (await revenueOf(to))?.lifetime_revenue_usd_cents === 700);
    expect((await appUser(http, owner.token, projectId, to)).properties).toMatchObject({ sp_subscriber: "true" });
    await waitUntil("the former owner to be re-synced", async () => (await appUser(http, owner.token, projectId, from))?.properties.sp_subscriber === "false");
    expect(fake.received.some((call) => call.path.includes("RCAnonymousID"))).toBe(false);
  });

  it("answers 404 while the integration is disabled", async () => {
    expect((await http.patch(`/v1/projects/${projectId}/integrations/subprov`, { enabled: false }, { token: owner.token })).status).toBe(200);
    expect(await hook(delivery("RENEWAL", { app_user_id: "u" }))).toMatchObject({ status: 404, body: anError });
    expect((await http.patch(`/v1/projects/${projectId}/integrations/subprov`, { enabled: true }, { token: owner.token })).status).toBe(200);
  });
});

describe("replay", () => {
  it("rebuilds the sp_* properties and the revenue of app_users from the identity facts", async () => {
    const snapshot = () =>
      service.pool.any(sql.type(z.object({ user_id: z.string(), properties: z.record(z.string()), lifetime_revenue_usd_cents: z.number(), revenue_synced_at: z.string().nullable() }))`
        select user_id, properties, lifetime_revenue_usd_cents, revenue_synced_at from app_users where project_id = ${projectId} order by user_id`);
    const before = await snapshot();
    expect(before.filter((row) => row.lifetime_revenue_usd_cents > 0).length).toBeGreaterThan(3);
    await replay(replayDeps(service), projectionNamed("app_users"));
    expect(await snapshot()).toEqual(before);
  });
});

describe("secrets in the log", () => {
  it("never writes the api key or the webhook secret to the log", async () => {
    expect(logLines.length).toBeGreaterThan(50);
    const log = logLines.join("");
    // The capture works: the worker's re-sync and the webhook requests are in it.
    expect(log).toContain("subprov transfer re-synced");
    expect(log).toContain("/v1/webhooks/subprov/");
    expect(log).not.toContain(API_KEY);
    expect(log).not.toContain(secret);
  });
});
