import { z } from "zod";
import { JOB_TYPES } from "./catalogue.ts";

/**
 * Job run facts, on the DOMAIN subject of the run's (scope, type) (see catalogue.ts `jobScope`).
 * Every fact names its run, and each one alone tells the run's status: the decider's state is the
 * subject's last message folded from nothing (decider.ts says why).
 */
export const jobTriggered = z.object({
  type: z.literal("JobTriggered"),
  v: z.literal(1),
  run_id: z.string(),
  job_type: z.enum(JOB_TYPES),
  team_id: z.string().nullable(),
  project_id: z.string().nullable(),
  triggered_by: z.string(),
  params: z.record(z.unknown()),
  notify: z.boolean(),
});

/** A worker took the run; it holds it until `lease_until` unless it renews the lease. */
export const jobStarted = z.object({
  type: z.literal("JobStarted"),
  v: z.literal(1),
  run_id: z.string(),
  worker_id: z.string(),
  lease_until: z.string(),
});

export const jobProgressed = z.object({
  type: z.literal("JobProgressed"),
  v: z.literal(1),
  run_id: z.string(),
  processed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative().nullable(),
  message: z.string().nullable(),
  lease_until: z.string(),
});

/** The worker is still at it: a heartbeat between progress reports of a long step. */
export const jobLeaseRenewed = z.object({
  type: z.literal("JobLeaseRenewed"),
  v: z.literal(1),
  run_id: z.string(),
  lease_until: z.string(),
});

export const jobCompleted = z.object({
  type: z.literal("JobCompleted"),
  v: z.literal(1),
  run_id: z.string(),
  result: z.record(z.unknown()),
});

export const jobFailed = z.object({
  type: z.literal("JobFailed"),
  v: z.literal(1),
  run_id: z.string(),
  error: z.string(),
});

/** `team_id` travels along for the audit entry of a cancel. */
export const jobCancelled = z.object({
  type: z.literal("JobCancelled"),
  v: z.literal(1),
  run_id: z.string(),
  team_id: z.string().nullable(),
  previous_status: z.enum(["pending", "running"]),
});

export const jobEvents = [jobTriggered, jobStarted, jobProgressed, jobLeaseRenewed, jobCompleted, jobFailed, jobCancelled] as const;
export type JobTriggered = z.infer<typeof jobTriggered>;
export type JobFact = z.infer<(typeof jobEvents)[number]>;

const JOB_FACT_TYPES: ReadonlySet<string> = new Set(jobEvents.map((event) => event.shape.type.value));

/** Whether a DOMAIN fact is a job run's. */
export const isJobFact = <E extends { type: string }>(event: E): event is Extract<E, JobFact> => JOB_FACT_TYPES.has(event.type);
