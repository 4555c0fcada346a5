import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type Service } from "../../apps/runtime.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, ingest } from "../support/events.ts";
import { client, type Client } from "../support/http.ts";
import { cleanUp, spawnTsx, waitUntil, type OwnedProcess } from "../support/processes.ts";
import { serviceEnv, startTestService, stopTestService, testConfig, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

const LEASE_MS = 2_000;
const EVERY_SECOND = JSON.stringify({ notification_cleanup: "* * * * * *", attachment_cleanup: "off", retention_cleanup: "off", app_ratings_sync: "off", issue_digest: "off" });

/** Job runs as the read model holds them, system runs included (the API lists team runs only). */
async function runsOf(databaseUrl: string, jobType: string): Promise<{ id: string; status: string; params: { scheduled_at?: string }; error: string | null }[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    return (await db.query("select id, status, params, error from job_runs where job_type = $1 order by created_at", [jobType])).rows;
  } finally {
    await db.end();
  }
}

describe("job runs across workers", () => {
  // The API and the projectors run here; the workers are started by each test.
  let service: TestService;
  let http: Client;
  let owner: SignedIn;
  const workers: Service[] = [];
  let child: OwnedProcess | undefined;

  beforeAll(async () => {
    const config = await testConfig({ JOB_LEASE_MS: String(LEASE_MS), JOB_SCHEDULES: EVERY_SECOND });
    service = await startTestService(config, ["api", "projector"]);
    http = client(service.baseUrl);
    owner = await signIn(http, service.outbox);
  });
  afterAll(async () => cleanUp([() => child?.stop("SIGKILL"), ...workers.map((worker) => () => worker.close()), () => stopTestService(service)]));

  it("runs each scheduled firing once although two workers fire it", async () => {
    workers.push(await startService(service.config, ["worker"]), await startService(service.config, ["worker"]));
    await waitUntil("five scheduled runs", async () => (await runsOf(service.databaseUrl, "notification_cleanup")).filter((run) => run.status === "completed").length >= 5, 20_000);
    for (const worker of workers.splice(0)) await worker.close();
    const runs = await runsOf(service.databaseUrl, "notification_cleanup");
    const firings = runs.map((run) => run.params.scheduled_at);
    expect(new Set(firings).size).toBe(runs.length);
    for (const run of runs) expect(run.status).toBe("completed");
    // Whole seconds, as the pattern fires, whichever worker appended the trigger.
    for (const at of firings) expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
  });

  it("fails a run whose worker was killed mid-job once its lease ends, and frees its slot", async () => {
    const { project, clientKey, app } = await projectWithApp(http, owner.token, owner.teamId);
    for (let batch = 0; batch < 10; batch += 1) {
      await ingest(http, clientKey, { bundle_id: app.bundle_id, events: Array.from({ length: 100 }, () => anEvent({ level: "error" })) });
    }
    await waitUntil("errors projected", async () => (await http.get(`/v1/events/count?project_id=${project.id}&level=error`, { token: owner.token })).body.count === 1_000);
    child = spawnTsx("apps/worker/main.ts", { ...serviceEnv(service.config), JOB_LEASE_MS: String(LEASE_MS), JOB_SCHEDULES: JSON.stringify({ notification_cleanup: "off" }) });
    const trigger = await http.post(`/v1/teams/${owner.teamId}/jobs/trigger`, { job_type: "issue_scan", project_id: project.id, params: { page_size: 1 } }, { token: owner.token });
    const runId = trigger.body.job_run.id;
    await waitUntil(
      "the child worker running the scan",
      async () => {
        const run = (await http.get(`/v1/jobs/${runId}`, { token: owner.token })).body.job_run;
        return run.status === "running" && run.progress.processed > 0;
      },
      30_000,
    );
    await child.stop("SIGKILL");
    // A surviving worker's sweep notices the lease ended.
    workers.push(await startService(service.config, ["worker"]));
    const failed = await waitUntil(
      "the run failed",
      async () => {
        const run = (await http.get(`/v1/jobs/${runId}`, { token: owner.token })).body.job_run;
        return run.status === "failed" ? run : undefined;
      },
      20_000,
    );
    expect(failed.error).toMatch(/stopped responding/);
    expect(failed.progress.processed).toBeLessThan(1_000);
    const again = await http.post(`/v1/teams/${owner.teamId}/jobs/trigger`, { job_type: "issue_scan", project_id: project.id }, { token: owner.token });
    expect(again.status).toBe(201);
  });
});
