import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type Service } from "../../apps/runtime.ts";
import { issueScanSchedule } from "../../apps/worker/jobs/issue-scan-schedule.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, ingest } from "../support/events.ts";
import { client, type Client } from "../support/http.ts";
import { waitUntil } from "../support/processes.ts";
import { startTestService, stopTestService, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * `issue_scan` as the detector's safety net: errors ingested while no worker ran (so no detector
 * saw them) become issues when the hourly schedule scans the project, and a second scan finds
 * nothing more.
 */

let service: TestService;
let worker: Service | undefined;
let http: Client;
let owner: SignedIn;

beforeAll(async () => {
  service = await startTestService(undefined, ["api", "projector"]);
  http = client(service.baseUrl);
  owner = await signIn(http, service.outbox);
});
afterAll(async () => {
  await worker?.close();
  await stopTestService(service);
});

const runsOf = async (projectId: string) =>
  (await http.get(`/v1/teams/${owner.teamId}/jobs?job_type=issue_scan&project_id=${projectId}`, { token: owner.token })).body.job_runs as any[];

describe("issue_scan", () => {
  it("opens the issues the detector missed on its hourly firing, and finds nothing more when run again", async () => {
    const { project, app, clientKey } = await projectWithApp(http, owner.token, owner.teamId);
    const sessions = [randomUUID(), randomUUID(), randomUUID()];
    const events = [
      anEvent({ level: "error", message: "Disk full 12", session_id: sessions[0] }),
      anEvent({ level: "error", message: "Disk full 97", session_id: sessions[1] }),
      anEvent({ level: "error", message: "Socket closed", session_id: sessions[2], timestamp: new Date(Date.now() - 60_000).toISOString() }),
      anEvent({ level: "info", message: "screen_view", session_id: sessions[0] }),
    ];
    expect((await ingest(http, clientKey, { bundle_id: app.bundle_id, events })).body.accepted).toBe(4);
    await waitUntil("errors projected", async () => (await http.get(`/v1/events/count?project_id=${project.id}&level=error`, { token: owner.token })).body.count === 3);

    // The worker starts after the batch: its detector begins at new messages, so only the scan can find these.
    worker = await startService(service.config, ["worker"]);
    const schedule = issueScanSchedule(service.log, service.pool);
    await schedule.run();
    await schedule.run();
    const scheduled = await waitUntil("the scheduled scan completed", async () => {
      const runs = await runsOf(project.id);
      return runs.length === 1 && runs[0].status === "completed" ? runs[0] : undefined;
    });
    expect(scheduled).toMatchObject({ triggered_by: "schedule", params: { window_hours: 2 }, result: { apps: 1, events: 3, sessions: 3, issues_created: 2, regressed: 0, reopened: 0 } });
    const issues = (await http.get(`/v1/projects/${project.id}/issues`, { token: owner.token })).body.issues;
    // Both disk errors are one issue, titled by whichever of them came first.
    expect(issues.map((issue: any) => [issue.title.replace(/\d+$/, "<n>"), issue.occurrence_count]).sort()).toEqual([
      ["Disk full <n>", 2],
      ["Socket closed", 1],
    ]);

    const again = await http.post(`/v1/teams/${owner.teamId}/jobs/trigger`, { job_type: "issue_scan", project_id: project.id }, { token: owner.token });
    expect(again.status).toBe(201);
    const rerun = await waitUntil("the second scan completed", async () => {
      const run = (await http.get(`/v1/jobs/${again.body.job_run.id}`, { token: owner.token })).body.job_run;
      return run.status === "completed" ? run : undefined;
    });
    expect(rerun.result).toMatchObject({ events: 3, issues_created: 0, regressed: 0, reopened: 0 });
  });
});
