import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "pino";
import type { DatabasePool } from "slonik";
import { decodeDomainEnvelope } from "../../../domain/events.ts";
import type { JobType } from "../../../domain/jobs/catalogue.ts";
import type { JobCommand } from "../../../domain/jobs/decider.ts";
import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { DomainError } from "../../../domain/shared/errors.ts";
import { runsWaitingToStart, runsWithExpiredLeases } from "../../../projections/jobs/queries.ts";
import type { Log } from "../../../streams/connection.ts";
import { runDurable } from "../../../streams/durable.ts";
import { runJobCommand, type JobCommandOutcome } from "../../commands/job-command.ts";
import { JobStopped, type JobContext, type JobHandler, type RunInfo } from "./job-context.ts";

export type JobRunnerDeps = {
  log: Log;
  pool: DatabasePool;
  logger: Logger;
  config: { jobLeaseMs: number };
  /** Told how each run this worker executed ended. */
  finished?: (jobType: string, outcome: "completed" | "failed" | "stopped") => void;
};

/** A pending run no worker took within this long is taken by the sweep. */
const UNCLAIMED_AFTER_MS = 5_000;

/**
 * Runs job runs. Every worker reads the triggers from one shared durable consumer and takes a run
 * by appending its start against the run's subject, so exactly one worker runs it. While running,
 * the worker renews the run's lease every third of `jobLeaseMs`; any worker's periodic sweep fails
 * runs whose lease ended (their worker died) and takes pending runs whose trigger it never got.
 */
export class JobRunner {
  readonly workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  readonly #running = new Map<string, { stop: AbortController; done: Promise<void> }>();
  readonly #logger: Logger;
  #consumer: { stop: () => Promise<void> } | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> = Promise.resolve();
  #stopping = false;

  constructor(
    private readonly deps: JobRunnerDeps,
    private readonly handlers: Record<JobType, JobHandler>,
  ) {
    this.#logger = deps.logger.child({ component: "jobs", worker: this.workerId });
  }

  start(): void {
    this.#consumer = runDurable(this.deps.log, {
      name: "job_runner",
      stream: "DOMAIN",
      filter: "job.>",
      logger: this.deps.logger,
      handle: async (message) => {
        for (const event of decodeDomainEnvelope(message.data).events) {
          if (event.type === "JobTriggered") {
            await this.#take({ id: event.run_id, jobType: event.job_type, teamId: event.team_id, projectId: event.project_id, params: event.params });
          }
        }
      },
    });
    const every = Math.max(500, Math.floor(this.deps.config.jobLeaseMs / 2));
    this.#sweeper = setInterval(() => {
      this.#sweeping = this.#sweeping.then(() => this.#sweep()).catch((error) => this.#logger.warn({ err: error }, "job sweep failed"));
    }, every);
  }

  /** Stops taking runs, asks the running ones to stop at their next step and waits for them. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#sweeper);
    await this.#consumer?.stop();
    await this.#sweeping;
    for (const { stop } of this.#running.values()) stop.abort();
    await Promise.all([...this.#running.values()].map(({ done }) => done));
  }

  /** Takes a pending run for this worker and starts it; a run someone else took or cancelled is skipped. */
  async #take(run: RunInfo): Promise<void> {
    if (this.#stopping || this.#running.has(run.id)) return;
    const started = await this.#command(run, { type: "StartJob", runId: run.id, workerId: this.workerId, leaseUntil: this.#leaseUntil() });
    if (started === null || started.facts.length === 0) return;
    const stop = new AbortController();
    const done = this.#execute(run, stop).finally(() => this.#running.delete(run.id));
    this.#running.set(run.id, { stop, done });
  }

  async #execute(run: RunInfo, stop: AbortController): Promise<void> {
    const log = this.#logger.child({ run_id: run.id, job_type: run.jobType });
    const stopIfRefused = (outcome: JobCommandOutcome | null) => {
      if (outcome === null) stop.abort();
      if (stop.signal.aborted) throw new JobStopped("the run was cancelled or is no longer this worker's");
    };
    const context: JobContext = {
      run,
      signal: stop.signal,
      checkpoint: async () => stopIfRefused(await this.#command(run, { type: "RenewLease", runId: run.id, leaseUntil: this.#leaseUntil() })),
      progress: async (processed, total, message) =>
        stopIfRefused(await this.#command(run, { type: "RecordProgress", runId: run.id, processed, total, message, leaseUntil: this.#leaseUntil() })),
    };
    // Heartbeats keep the lease while a long step runs between two progress reports.
    const heartbeat = setInterval(() => {
      void this.#command(run, { type: "RenewLease", runId: run.id, leaseUntil: this.#leaseUntil() })
        .then((outcome) => outcome === null && stop.abort())
        .catch((error) => log.warn({ err: error }, "lease renewal failed"));
    }, Math.floor(this.deps.config.jobLeaseMs / 3));
    try {
      log.info("job started");
      const result = await this.handlers[run.jobType](context);
      await this.#command(run, { type: "CompleteJob", runId: run.id, result });
      log.info({ result }, "job completed");
      this.deps.finished?.(run.jobType, "completed");
    } catch (error) {
      if (error instanceof JobStopped && !this.#stopping) {
        log.info("job stopped: cancelled or taken over");
        this.deps.finished?.(run.jobType, "stopped");
        return;
      }
      const message = this.#stopping ? "the worker shut down before the job finished" : errorMessage(error);
      log.warn({ err: error }, "job failed");
      this.deps.finished?.(run.jobType, "failed");
      await this.#command(run, { type: "FailJob", runId: run.id, error: message }).catch((failure) => log.error({ err: failure }, "could not record the failure"));
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Fails runs whose worker stopped renewing their lease, then takes pending runs nobody took. */
  async #sweep(): Promise<void> {
    const now = new Date();
    for (const run of await runsWithExpiredLeases(this.deps.pool, now)) {
      if (this.#running.has(run.id)) continue;
      const outcome = await this.#command(
        { projectId: run.project_id, jobType: run.job_type as JobType },
        { type: "ExpireLease", runId: run.id, now: now.toISOString() },
      );
      if (outcome?.facts.length) this.#logger.warn({ run_id: run.id }, "job failed: its worker stopped responding");
    }
    if (this.#stopping) return;
    for (const row of await runsWaitingToStart(this.deps.pool, new Date(now.getTime() - UNCLAIMED_AFTER_MS))) {
      await this.#take({ id: row.id, jobType: row.job_type, teamId: row.team_id, projectId: row.project_id, params: row.params });
    }
  }

  /** Runs a job command as the system; null when the decider refused it (the run is not in the state it needs). */
  async #command(slot: { projectId: string | null; jobType: string }, command: JobCommand): Promise<JobCommandOutcome | null> {
    try {
      return await runJobCommand(this.deps.log, slot, command, SYSTEM_ACTOR);
    } catch (error) {
      if (error instanceof DomainError) return null;
      throw error;
    }
  }

  #leaseUntil(): string {
    return new Date(Date.now() + this.deps.config.jobLeaseMs).toISOString();
  }
}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 2_000);
