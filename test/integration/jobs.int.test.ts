import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectWithApp, createProject } from "../support/catalog.ts";
import { anEvent, ingest } from "../support/events.ts";
import { anError, type Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { outboxMessages } from "../support/outbox.ts";
import { waitUntil } from "../support/processes.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

let service: TestService;
let http: Client;
let owner: SignedIn;
let projectId: string;
let clientKey: string;
let bundleId: string;

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  ({ project: { id: projectId }, clientKey, app: { bundle_id: bundleId } } = await projectWithApp(http, owner.token, owner.teamId));
});
afterAll(async () => stopTestService(service));

const trigger = (body: Record<string, unknown>, token = owner.token, teamId = owner.teamId) =>
  http.post(`/v1/teams/${teamId}/jobs/trigger`, body, { token });
const getRun = (runId: string, token = owner.token) => http.get(`/v1/jobs/${runId}`, { token });
const runWhen = (runId: string, ready: (run: any) => boolean, token = owner.token) =>
  waitUntil(`job run ${runId}`, async () => {
    const run = (await getRun(runId, token)).body.job_run;
    return ready(run) ? run : undefined;
  });
const finished = (run: any) => ["completed", "failed", "cancelled"].includes(run.status);
const agentKey = async (permissions?: string[]) =>
  (await http.post("/v1/auth/keys", { name: "jobs", key_type: "agent", team_id: owner.teamId, permissions }, { token: owner.token })).body.api_key.secret as string;

/** Error events in `count / 100` batches. */
async function ingestErrors(count: number, key = clientKey, bundle = bundleId) {
  for (let sent = 0; sent < count; sent += 100) {
    const events = Array.from({ length: Math.min(100, count - sent) }, (_, i) => anEvent({ level: "error", message: `boom ${sent + i}` }));
    const response = await ingest(http, key, { bundle_id: bundle, events });
    expect(response.body.accepted).toBe(events.length);
  }
}

describe("POST /v1/teams/:teamId/jobs/trigger", () => {
  it("creates a pending run that the worker completes with a result, and audits it", async () => {
    await ingestErrors(30);
    await waitUntil("errors projected", async () => (await http.get(`/v1/events/count?project_id=${projectId}&level=error`, { token: owner.token })).body.count === 30);
    // The detector groups them first (one message, numbers normalized away): the scan then finds nothing new.
    await waitUntil("the issue detected", async () => (await http.get(`/v1/issues/count?project_id=${projectId}`, { token: owner.token })).body.new === 1);
    const response = await trigger({ job_type: "issue_scan", project_id: projectId, params: { page_size: 7 } });
    expect(response.status).toBe(201);
    expect(response.body.job_run).toMatchObject({
      job_type: "issue_scan",
      status: "pending",
      team_id: owner.teamId,
      project_id: projectId,
      triggered_by: `manual:user:${owner.userId}`,
      params: { page_size: 7 },
      progress: { processed: 0, total: null, message: null },
      result: null,
      error: null,
      notify: false,
      started_at: null,
      completed_at: null,
    });
    const run = await runWhen(response.body.job_run.id, finished);
    expect(run).toMatchObject({ status: "completed", progress: { processed: 30 }, result: { apps: 1, events: 30, sessions: 30, issues_created: 0 } });
    expect(Date.parse(run.completed_at)).toBeGreaterThanOrEqual(Date.parse(run.started_at));
    const audit = await http.get(`/v1/teams/${owner.teamId}/audit-logs?resource_type=job_run`, { token: owner.token });
    expect(audit.body.audit_logs).toContainEqual(
      expect.objectContaining({ action: "create", resource_id: run.id, actor_id: owner.userId, metadata: expect.objectContaining({ job_type: "issue_scan" }) }),
    );
  });

  it("never lets two runs of a type be active for one project, however many triggers race", async () => {
    const { id } = await createProject(http, owner.token, owner.teamId);
    const answers = await Promise.all(Array.from({ length: 12 }, () => trigger({ job_type: "issue_scan", project_id: id })));
    const created = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.job_run.id as string);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const answer of answers.filter((a) => a.status !== 201)) {
      expect(answer.status).toBe(409);
      expect(answer.body).toEqual({ error: expect.stringContaining("already"), existing_run_id: expect.any(String) });
      expect(created).toContain(answer.body.existing_run_id);
    }
    // A run that finished frees the slot, so a later trigger may win again; runs never overlap.
    const runs = await Promise.all(created.map((runId) => runWhen(runId, finished)));
    runs.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
    for (let i = 1; i < runs.length; i += 1) expect(Date.parse(runs[i].created_at)).toBeGreaterThanOrEqual(Date.parse(runs[i - 1].completed_at));
  });

  it("refuses unknown and system types, a missing project and a project of another team", async () => {
    for (const body of [{ job_type: "mine_coins", project_id: projectId }, { job_type: "attachment_cleanup" }, { job_type: "retention_cleanup", project_id: projectId }, { job_type: "issue_scan" }]) {
      const response = await trigger(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toEqual(anError);
    }
    expect((await trigger({ job_type: "issue_scan" })).body.error).toMatch(/project_id/);
    const stranger = await signIn(http, service.outbox);
    const foreign = await createProject(http, stranger.token, stranger.teamId);
    expect((await trigger({ job_type: "issue_scan", project_id: foreign.id })).status).toBe(404);
    expect((await trigger({ job_type: "issue_scan", project_id: projectId }, stranger.token)).status).toBe(404);
  });

  it("fails provider jobs with a clear error while the project has no integration", async () => {
    const response = await trigger({ job_type: "subprov_sync", project_id: projectId });
    const run = await runWhen(response.body.job_run.id, finished);
    expect(run).toMatchObject({ status: "failed", result: null, error: expect.stringMatching(/no subscription provider .*integration is configured/) });
  });

  it("emails the triggering user when a run with notify completes", async () => {
    const { id } = await createProject(http, owner.token, owner.teamId);
    const response = await trigger({ job_type: "issue_scan", project_id: id, notify: true });
    await runWhen(response.body.job_run.id, finished);
    const mail = await waitUntil("job notice", async () =>
      (await outboxMessages(service.outbox)).find((message) => message.to === owner.email && message.subject === "Job issue_scan completed"),
    );
    expect(mail.text).toContain(response.body.job_run.id);
  });

  it("records an agent key as the trigger and honours the key's permissions", async () => {
    const writer = await agentKey(["jobs:write", "jobs:read"]);
    const { id } = await createProject(http, owner.token, owner.teamId);
    const response = await trigger({ job_type: "issue_scan", project_id: id }, writer);
    expect(response.status).toBe(201);
    expect(response.body.job_run.triggered_by).toMatch(/^manual:api_key:[0-9a-f-]{36}$/);
    const reader = await agentKey(["jobs:read"]);
    expect((await trigger({ job_type: "issue_scan", project_id: id }, reader)).status).toBe(403);
    expect((await getRun(response.body.job_run.id, reader)).status).toBe(200);
    expect((await http.post(`/v1/jobs/${response.body.job_run.id}/cancel`, {}, { token: reader })).status).toBe(403);
    const none = await agentKey(["events:read"]);
    expect((await getRun(response.body.job_run.id, none)).status).toBe(403);
    expect((await http.get(`/v1/teams/${owner.teamId}/jobs`, { token: none })).status).toBe(403);
  });
});

describe("GET /v1/teams/:teamId/jobs and GET /v1/jobs/:runId", () => {
  it("lists runs newest first with every filter and the <timestamp>|<id> cursor", async () => {
    const other = await createProject(http, owner.token, owner.teamId);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await trigger({ job_type: "adnet_sync", project_id: other.id });
      ids.push(response.body.job_run.id);
      await runWhen(response.body.job_run.id, finished);
    }
    const all = await http.get(`/v1/teams/${owner.teamId}/jobs?project_id=${other.id}&limit=2`, { token: owner.token });
    expect(all.body.job_runs.map((run: any) => run.id)).toEqual([ids[2], ids[1]]);
    expect(all.body).toMatchObject({ has_more: true, cursor: expect.stringMatching(/^\d{4}-.+Z\|[0-9a-f-]{36}$/) });
    const next = await http.get(`/v1/teams/${owner.teamId}/jobs?project_id=${other.id}&limit=2&cursor=${encodeURIComponent(all.body.cursor)}`, { token: owner.token });
    expect(next.body).toMatchObject({ job_runs: [expect.objectContaining({ id: ids[0] })], has_more: false, cursor: null });
    const filtered = async (query: string) =>
      (await http.get(`/v1/teams/${owner.teamId}/jobs?${query}`, { token: owner.token })).body.job_runs.map((run: any) => run.id);
    expect(await filtered(`job_type=adnet_sync&status=failed&project_id=${other.id}`)).toEqual([ids[2], ids[1], ids[0]]);
    expect(await filtered(`job_type=issue_scan&project_id=${other.id}`)).toEqual([]);
    expect(await filtered(`status=completed&project_id=${other.id}`)).toEqual([]);
    expect(await filtered(`since=1h&until=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}&project_id=${other.id}`)).toHaveLength(3);
    expect(await filtered(`until=2020-01-01&project_id=${other.id}`)).toEqual([]);
    expect((await http.get(`/v1/teams/${owner.teamId}/jobs?status=stuck`, { token: owner.token })).status).toBe(400);
    expect((await http.get(`/v1/teams/${owner.teamId}/jobs?cursor=nonsense`, { token: owner.token })).status).toBe(400);
  });

  it("answers 404 for unknown runs and runs of other teams, and lists admins' runs to admins only", async () => {
    const response = await trigger({ job_type: "adnet_sync", project_id: projectId });
    const stranger = await signIn(http, service.outbox);
    expect((await getRun(response.body.job_run.id, stranger.token)).status).toBe(404);
    expect((await getRun("00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await http.get(`/v1/teams/${owner.teamId}/jobs`, { token: stranger.token })).status).toBe(404);
    const member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    expect((await getRun(response.body.job_run.id, member.token)).status).toBe(200);
    expect((await http.get(`/v1/teams/${owner.teamId}/jobs`, { token: member.token })).status).toBe(403);
    expect((await trigger({ job_type: "issue_scan", project_id: projectId }, member.token)).status).toBe(403);
  });
});

describe("POST /v1/jobs/:runId/cancel", () => {
  it("cancels a running run, whose worker stops at its next step", async () => {
    const { project, clientKey: key, app } = await projectWithApp(http, owner.token, owner.teamId);
    await ingestErrors(1_500, key, app.bundle_id);
    await waitUntil("errors projected", async () => (await http.get(`/v1/events/count?project_id=${project.id}&level=error`, { token: owner.token })).body.count === 1_500);
    const response = await trigger({ job_type: "issue_scan", project_id: project.id, params: { page_size: 1 } });
    const runId = response.body.job_run.id;
    await runWhen(runId, (run) => run.status === "running" && run.progress.processed > 0);
    const cancel = await http.post(`/v1/jobs/${runId}/cancel`, {}, { token: owner.token });
    expect(cancel).toMatchObject({ status: 200, body: { cancelled: true } });
    const cancelled = (await getRun(runId)).body.job_run;
    expect(cancelled).toMatchObject({ status: "cancelled", result: null, completed_at: expect.any(String) });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const later = (await getRun(runId)).body.job_run;
    expect(later).toMatchObject({ status: "cancelled", progress: { processed: cancelled.progress.processed } });
    expect(later.progress.processed).toBeLessThan(1_500);
    expect((await http.post(`/v1/jobs/${runId}/cancel`, {}, { token: owner.token })).status).toBe(400);
    // The slot is free again.
    expect((await trigger({ job_type: "issue_scan", project_id: project.id })).status).toBe(201);
  });

  it("answers 400 for a finished run and 404 for unknown or foreign runs", async () => {
    const response = await trigger({ job_type: "adnet_sync", project_id: projectId });
    await runWhen(response.body.job_run.id, finished);
    const refused = await http.post(`/v1/jobs/${response.body.job_run.id}/cancel`, {}, { token: owner.token });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/not running/);
    expect((await http.post("/v1/jobs/00000000-0000-4000-8000-000000000000/cancel", {}, { token: owner.token })).status).toBe(404);
    const stranger = await signIn(http, service.outbox);
    expect((await http.post(`/v1/jobs/${response.body.job_run.id}/cancel`, {}, { token: stranger.token })).status).toBe(404);
  });
});
