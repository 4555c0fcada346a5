import { describe, expect, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import { jobDecider, type JobCommand } from "./decider.ts";
import type { JobFact } from "./events.ts";

const LEASE = "2026-01-01T00:01:00.000Z";
const triggered = (runId = "r1"): JobFact => ({
  type: "JobTriggered",
  v: 1,
  run_id: runId,
  job_type: "issue_scan",
  team_id: "t",
  project_id: "p",
  triggered_by: "manual:user:u",
  params: {},
  notify: false,
});
const started = (runId = "r1"): JobFact => ({ type: "JobStarted", v: 1, run_id: runId, worker_id: "w", lease_until: LEASE });
const trigger = (overrides: Partial<Extract<JobCommand, { type: "TriggerJob" }>> = {}): JobCommand => ({
  type: "TriggerJob",
  runId: "r2",
  jobType: "issue_scan",
  teamId: "t",
  projectId: "p",
  triggeredBy: "manual:user:u",
  params: {},
  notify: false,
  ...overrides,
});

describe("job runs", () => {
  it("triggers a project job when none is active", () => {
    given(jobDecider)().when(trigger()).then(triggered("r2"));
    given(jobDecider)(triggered("r1"), started("r1"), { type: "JobCompleted", v: 1, run_id: "r1", result: {} })
      .when(trigger())
      .then(triggered("r2"));
  });

  it("refuses a second active run and names the existing one", () => {
    const pending = given(jobDecider)(triggered()).when(trigger()).thenFails("conflict");
    const running = given(jobDecider)(triggered(), started()).when(trigger()).thenFails("conflict");
    for (const error of [pending, running]) if (error.extra.existing_run_id !== "r1") throw new Error("existing_run_id missing");
  });

  it("turns a second trigger of the same scheduled run into nothing", () => {
    given(jobDecider)(triggered("r2")).when(trigger()).then();
  });

  it("refuses unknown types, system types triggered by hand and project jobs without a project", () => {
    given(jobDecider)().when(trigger({ jobType: "mine_bitcoin" })).thenFails("invalid");
    given(jobDecider)().when(trigger({ jobType: "attachment_cleanup", projectId: null })).thenFails("invalid");
    given(jobDecider)().when(trigger({ projectId: null })).thenFails("invalid");
    given(jobDecider)()
      .when(trigger({ jobType: "attachment_cleanup", projectId: null, teamId: null, triggeredBy: "schedule" }))
      .then({ ...(triggered("r2") as object), job_type: "attachment_cleanup", team_id: null, project_id: null, triggered_by: "schedule" } as JobFact);
  });

  it("lets one worker take a pending run", () => {
    given(jobDecider)(triggered()).when({ type: "StartJob", runId: "r1", workerId: "w", leaseUntil: LEASE }).then(started());
    given(jobDecider)(triggered(), started()).when({ type: "StartJob", runId: "r1", workerId: "w2", leaseUntil: LEASE }).thenFails("conflict");
  });

  it("cancels pending and running runs and refuses the others", () => {
    const cancel: JobCommand = { type: "CancelJob", runId: "r1", teamId: "t" };
    given(jobDecider)(triggered(), started()).when(cancel).then({ type: "JobCancelled", v: 1, run_id: "r1", team_id: "t", previous_status: "running" });
    given(jobDecider)(triggered()).when(cancel).then({ type: "JobCancelled", v: 1, run_id: "r1", team_id: "t", previous_status: "pending" });
    given(jobDecider)(triggered(), started(), { type: "JobFailed", v: 1, run_id: "r1", error: "x" }).when(cancel).thenFails("invalid");
  });

  it("stops a worker's progress once the run is cancelled", () => {
    given(jobDecider)(triggered(), started(), { type: "JobCancelled", v: 1, run_id: "r1", team_id: "t", previous_status: "running" })
      .when({ type: "RecordProgress", runId: "r1", processed: 1, total: 2, message: null, leaseUntil: LEASE })
      .thenFails("conflict");
  });

  it("fails a run whose lease ended, and only then", () => {
    const expire = (now: string): JobCommand => ({ type: "ExpireLease", runId: "r1", now });
    given(jobDecider)(triggered(), started())
      .when(expire("2026-01-01T00:01:00.001Z"))
      .then({ type: "JobFailed", v: 1, run_id: "r1", error: expect.stringContaining("stopped responding") as unknown as string });
    given(jobDecider)(triggered(), started()).when(expire("2026-01-01T00:00:59.000Z")).then();
    given(jobDecider)(triggered()).when(expire("2027-01-01T00:00:00.000Z")).then();
  });
});
