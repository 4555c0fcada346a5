import { z } from "zod";
import { JOB_STATUSES, JOB_TYPES, PROJECT_JOB_TYPES } from "../../../domain/jobs/catalogue.ts";
import { pageQuery } from "../listing.ts";
import { uuid } from "../validation.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

export const jobTeamParams = z.object({ teamId: uuid });
export const runParams = z.object({ runId: uuid });

/**
 * The trigger's body. `job_type` is free text here: an unknown or system type is the decider's
 * 400 with the list of types that may be triggered, the same answer whatever the route.
 */
export const triggerBody = z.object({
  job_type: z.string().min(1).max(64).describe(`A project-scoped type: ${PROJECT_JOB_TYPES.join(", ")}`),
  project_id: uuid.optional().describe("Required for project-scoped types; the project must belong to the team"),
  params: z.record(z.unknown()).optional().describe("Type-specific parameters (docs/jobs.md)"),
  notify: z.boolean().optional().describe("Email the triggering user when the run completes or fails (default false)"),
});

export const jobsQuery = pageQuery.extend({
  job_type: z.enum(JOB_TYPES).optional(),
  status: z.enum(JOB_STATUSES).optional(),
  project_id: uuid.optional(),
});

/** One job run (SPEC, Job run). */
export const jobRunBody = z.object({
  id: z.string().uuid(),
  job_type: z.enum(JOB_TYPES),
  status: z.enum(JOB_STATUSES),
  team_id: z.string().uuid().nullable(),
  project_id: z.string().uuid().nullable(),
  triggered_by: z.string().describe("`manual:user:<id>`, `manual:api_key:<id>` or `schedule`"),
  params: z.record(z.unknown()),
  progress: z.object({ processed: z.number().int(), total: z.number().int().nullable(), message: z.string().nullable() }),
  result: z.record(z.unknown()).nullable(),
  error: z.string().nullable(),
  notify: z.boolean(),
  started_at: timestamp.nullable(),
  completed_at: timestamp.nullable(),
  created_at: timestamp,
});

export const jobRunEnvelope = z.object({ job_run: jobRunBody });
export const jobRunPage = z.object({
  job_runs: z.array(jobRunBody),
  cursor: z.string().nullable().describe("`<timestamp>|<id>`; null when has_more is false"),
  has_more: z.boolean(),
});
export const conflictWithRun = z.object({ error: z.string(), existing_run_id: z.string().uuid() });

const exampleRunId = "4d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a";
export const exampleJobRun = {
  id: exampleRunId,
  job_type: "issue_scan",
  status: "completed",
  team_id: EXAMPLE.teamId,
  project_id: EXAMPLE.projectId,
  triggered_by: `manual:user:${EXAMPLE.userId}`,
  params: {},
  progress: { processed: 2, total: 2, message: "scanned 2 of 2 apps" },
  result: { apps: 2, events: 41, issues_created: 0, regressed: 0, reopened: 0 },
  error: null,
  notify: false,
  started_at: EXAMPLE.at,
  completed_at: EXAMPLE.at,
  created_at: EXAMPLE.at,
} satisfies z.input<typeof jobRunBody>;
export const exampleTriggered = { job_run: { ...exampleJobRun, status: "pending", progress: { processed: 0, total: null, message: null }, result: null, started_at: null, completed_at: null } };
