import { afterAll, beforeAll, expect, it } from "vitest";
import { createProject } from "../support/catalog.ts";
import { client, type Client } from "../support/http.ts";
import { cleanUp, freePort, spawnTsx, waitUntil, type OwnedProcess } from "../support/processes.ts";
import { sampleOf } from "../support/prometheus.ts";
import { dropDatabase, serviceEnv, startTestService, testConfig, type TestService } from "../support/service.ts";
import { dropNamespace } from "../support/streams.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * Prometheus metrics of a deployment split into processes: the API (with the projectors here)
 * serves `/metrics` on its own port; a worker started on its own serves its job runs at
 * `METRICS_PORT`, and answers nothing else there.
 */

let service: TestService | undefined;
let worker: OwnedProcess | undefined;
let http: Client;
let owner: SignedIn;
let metricsPort: number;

beforeAll(async () => {
  const config = await testConfig();
  service = await startTestService(config, ["api", "projector"]);
  http = client(service.baseUrl);
  metricsPort = await freePort();
  worker = spawnTsx("apps/worker/main.ts", { ...serviceEnv(config), METRICS_PORT: String(metricsPort), HOST: "127.0.0.1" });
  owner = await signIn(http, service.outbox);
}, 120_000);

afterAll(async () => {
  const config = service?.config;
  await cleanUp([
    () => worker?.stop("SIGTERM"),
    () => service?.close(),
    () => config && dropNamespace(config.natsServers, config.namespace),
    () => config && dropDatabase(config.databaseUrl),
  ]);
});

const workerMetrics = () => fetch(`http://127.0.0.1:${metricsPort}/metrics`);

it("counts a worker's job runs by type and outcome at its METRICS_PORT", { timeout: 120_000 }, async () => {
  await waitUntil("the worker's metrics port", async () => (await workerMetrics().catch(() => undefined))?.ok, 60_000, 200);
  const project = await createProject(http, owner.token, owner.teamId);
  const triggered = await http.post(`/v1/teams/${owner.teamId}/jobs/trigger`, { job_type: "issue_scan", project_id: project.id }, { token: owner.token });
  expect(triggered.status).toBe(201);
  await waitUntil(
    "the run to complete",
    async () => (await http.get(`/v1/jobs/${triggered.body.job_run.id}`, { token: owner.token })).body.job_run?.status === "completed",
    60_000,
    200,
  );
  const text = await waitUntil("the completed run in the worker's metrics", async () => {
    const body = await (await workerMetrics()).text();
    return sampleOf(body, "job_runs_total", { job_type: "issue_scan", outcome: "completed", role: "worker", pid: String(worker!.pid) }) === 1 ? body : undefined;
  }, 10_000, 100);
  expect(sampleOf(text, "nats_reconnects_total", { role: "worker" })).toBe(0);

  const other = await fetch(`http://127.0.0.1:${metricsPort}/v1/events`);
  expect(other.status).toBe(404);
  expect(await other.json()).toEqual({ error: "only GET /metrics is served here" });
});

it("serves the API's own series at /metrics, routes by pattern and unmatched paths as one", { timeout: 60_000 }, async () => {
  expect((await http.get(`/v1/projects/${owner.teamId}/issues`, { token: owner.token })).status).toBe(404);
  expect((await http.get("/no/such/path")).status).toBe(404);
  const answer = await fetch(`${service!.baseUrl}/metrics`);
  expect(answer.status).toBe(200);
  const text = await answer.text();
  const api = { role: "api+projector", pid: String(process.pid) };
  expect(sampleOf(text, "http_request_duration_seconds_count", { ...api, method: "GET", route: "/v1/projects/:projectId/issues", status_code: "404" })).toBe(1);
  expect(sampleOf(text, "http_request_duration_seconds_count", { ...api, method: "GET", route: "unmatched", status_code: "404" })).toBe(1);
  expect(sampleOf(text, "projector_facts_total", { ...api, read_model: "directory" })).toBeGreaterThan(0);
  expect(sampleOf(text, "projector_lag_facts", { read_model: "directory", stream: "DOMAIN" })).toBeGreaterThanOrEqual(0);
});
