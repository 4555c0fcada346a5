import type { Decider } from "../shared/decider.ts";
import { conflict, invalid } from "../shared/errors.ts";
import { isActive, isJobType, isSystemJobType, PROJECT_JOB_TYPES, type JobStatus, type JobType } from "./catalogue.ts";
import type { JobFact } from "./events.ts";

/**
 * The runs of one (scope, type) subject. Only one of them can be active at a time, so the state
 * is the latest run alone, and every fact carries enough to rebuild it: the state is the subject's
 * last message folded from `initialState`, read straight from the log with its sequence. The API
 * and the worker decide on it without waiting for a read model, and optimistic concurrency on
 * that sequence settles every race (two triggers, a cancel against a progress report, two workers
 * taking one run, a lease expiry against a late heartbeat).
 */
export type JobSlot = { run: { id: string; status: JobStatus; leaseUntil: string | null } | null };

export type JobCommand =
  | {
      type: "TriggerJob";
      runId: string;
      jobType: string;
      teamId: string | null;
      projectId: string | null;
      triggeredBy: string;
      params: Record<string, unknown>;
      notify: boolean;
    }
  | { type: "StartJob"; runId: string; workerId: string; leaseUntil: string }
  | { type: "RecordProgress"; runId: string; processed: number; total: number | null; message: string | null; leaseUntil: string }
  | { type: "RenewLease"; runId: string; leaseUntil: string }
  | { type: "CompleteJob"; runId: string; result: Record<string, unknown> }
  | { type: "FailJob"; runId: string; error: string }
  | { type: "CancelJob"; runId: string; teamId: string | null }
  | { type: "ExpireLease"; runId: string; now: string };

const V = 1 as const;

/**
 * Whether a run of `jobType` may be triggered so: a known type, a system type by its schedule only,
 * a project-scoped type for a project. The API checks it before it looks the project up.
 * @throws DomainError invalid
 */
export function checkTrigger(jobType: string, projectId: string | null, triggeredBy: string): JobType {
  if (!isJobType(jobType)) throw invalid(`job_type: unknown job type ${JSON.stringify(jobType)}; one of ${PROJECT_JOB_TYPES.join(", ")}`);
  if (isSystemJobType(jobType) && triggeredBy !== "schedule") {
    throw invalid(`job_type: ${jobType} is a system job that runs on its schedule only; one of ${PROJECT_JOB_TYPES.join(", ")}`);
  }
  if (!isSystemJobType(jobType) && projectId === null) throw invalid(`project_id: required for ${jobType}`);
  return jobType;
}

function decideTrigger(state: JobSlot, command: Extract<JobCommand, { type: "TriggerJob" }>): JobFact[] {
  const jobType = checkTrigger(command.jobType, command.projectId, command.triggeredBy);
  const { projectId } = command;
  if (state.run && isActive(state.run.status)) {
    // A scheduled run whose id was already triggered (another worker fired the same schedule) is a no-op.
    if (state.run.id === command.runId) return [];
    throw conflict(`a ${jobType} job is already ${state.run.status} for this project`, { existing_run_id: state.run.id });
  }
  return [
    {
      type: "JobTriggered",
      v: V,
      run_id: command.runId,
      job_type: jobType,
      team_id: command.teamId,
      project_id: projectId,
      triggered_by: command.triggeredBy,
      params: command.params,
      notify: command.notify,
    },
  ];
}

/** The named run in the state, or a conflict a worker reads as "not yours any more". */
function runningRun(state: JobSlot, runId: string) {
  const run = state.run;
  if (!run || run.id !== runId) throw conflict(`job run ${runId} is no longer the latest run of its type`);
  if (run.status !== "running") throw conflict(`job run ${runId} is ${run.status}`);
  return run;
}

export const jobDecider: Decider<JobSlot, JobCommand, JobFact> = {
  initialState: { run: null },

  decide(state, command) {
    switch (command.type) {
      case "TriggerJob":
        return decideTrigger(state, command);
      case "StartJob": {
        const run = state.run;
        if (!run || run.id !== command.runId || run.status !== "pending") throw conflict(`job run ${command.runId} is not pending`);
        return [{ type: "JobStarted", v: V, run_id: command.runId, worker_id: command.workerId, lease_until: command.leaseUntil }];
      }
      case "RecordProgress":
        runningRun(state, command.runId);
        return [
          {
            type: "JobProgressed",
            v: V,
            run_id: command.runId,
            processed: command.processed,
            total: command.total,
            message: command.message,
            lease_until: command.leaseUntil,
          },
        ];
      case "RenewLease":
        runningRun(state, command.runId);
        return [{ type: "JobLeaseRenewed", v: V, run_id: command.runId, lease_until: command.leaseUntil }];
      case "CompleteJob":
        runningRun(state, command.runId);
        return [{ type: "JobCompleted", v: V, run_id: command.runId, result: command.result }];
      case "FailJob":
        runningRun(state, command.runId);
        return [{ type: "JobFailed", v: V, run_id: command.runId, error: command.error }];
      case "CancelJob": {
        const run = state.run;
        // A run that is not its subject's latest has finished: only the latest can be active.
        if (!run || run.id !== command.runId) throw invalid("job is not running");
        // A pending run is cancelled too: with no worker up it would otherwise block its type for good.
        if (run.status !== "running" && run.status !== "pending") throw invalid(`job is not running (status ${run.status})`);
        return [{ type: "JobCancelled", v: V, run_id: command.runId, team_id: command.teamId, previous_status: run.status }];
      }
      case "ExpireLease": {
        const run = state.run;
        if (!run || run.id !== command.runId || run.status !== "running" || run.leaseUntil === null) return [];
        if (Date.parse(run.leaseUntil) >= Date.parse(command.now)) return [];
        return [
          {
            type: "JobFailed",
            v: V,
            run_id: command.runId,
            error: `the worker running this job stopped responding (its lease ended at ${run.leaseUntil})`,
          },
        ];
      }
    }
  },

  evolve(state, fact) {
    switch (fact.type) {
      case "JobTriggered":
        return { run: { id: fact.run_id, status: "pending", leaseUntil: null } };
      case "JobStarted":
      case "JobProgressed":
      case "JobLeaseRenewed":
        return { run: { id: fact.run_id, status: "running", leaseUntil: fact.lease_until } };
      case "JobCompleted":
        return { run: { id: fact.run_id, status: "completed", leaseUntil: null } };
      case "JobFailed":
        return { run: { id: fact.run_id, status: "failed", leaseUntil: null } };
      case "JobCancelled":
        return { run: { id: fact.run_id, status: "cancelled", leaseUntil: null } };
      default:
        return state;
    }
  },
};
