import type { JobType } from "../../../domain/jobs/catalogue.ts";

/** The run a handler works on, as its trigger recorded it. */
export type RunInfo = {
  id: string;
  jobType: JobType;
  teamId: string | null;
  projectId: string | null;
  params: Record<string, unknown>;
};

/**
 * What a handler gets besides its own dependencies. Cancellation is cooperative: a handler calls
 * `progress` or `checkpoint` between its steps, and either throws `JobStopped` once the run was
 * cancelled, failed by the lease sweep or the worker is shutting down.
 */
export type JobContext = {
  run: RunInfo;
  /** Records progress (it also renews the lease). @throws JobStopped */
  progress: (processed: number, total: number | null, message: string | null) => Promise<void>;
  /** @throws JobStopped when the run must stop here */
  checkpoint: () => Promise<void>;
  /** Aborted when the run must stop: for waits and calls that take a signal. */
  signal: AbortSignal;
};

/** Runs one job; its result is the run's `result`. A thrown error fails the run with its message. */
export type JobHandler = (context: JobContext) => Promise<Record<string, unknown>>;

/** The run must not go on: cancelled, taken from this worker, or the worker is stopping. */
export class JobStopped extends Error {
  override name = "JobStopped";
}
