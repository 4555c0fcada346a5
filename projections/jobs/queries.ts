import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { JOB_STATUSES, JOB_TYPES } from "../../domain/jobs/catalogue.ts";

const jobRunRow = z.object({
  id: z.string(),
  job_type: z.enum(JOB_TYPES),
  status: z.enum(JOB_STATUSES),
  team_id: z.string().nullable(),
  project_id: z.string().nullable(),
  triggered_by: z.string(),
  params: z.record(z.unknown()),
  notify: z.boolean(),
  progress_processed: z.number(),
  progress_total: z.number().nullable(),
  progress_message: z.string().nullable(),
  result: z.record(z.unknown()).nullable(),
  error: z.string().nullable(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  created_at: z.string(),
});
export type JobRunRow = z.infer<typeof jobRunRow>;

const columns = sql.fragment`
  id, job_type, status, team_id, project_id, triggered_by, params, notify, progress_processed, progress_total,
  progress_message, result, error, started_at, completed_at, created_at`;

/** The API shape of a run (SPEC, Job run). */
export function toJobRun(row: JobRunRow) {
  const { progress_processed, progress_total, progress_message, ...rest } = row;
  return { ...rest, progress: { processed: progress_processed, total: progress_total, message: progress_message } };
}
export type JobRun = ReturnType<typeof toJobRun>;

export const jobRunById = (db: CommonQueryMethods, runId: string) =>
  db.maybeOne(sql.type(jobRunRow)`select ${columns} from job_runs where id = ${runId}`);

export type JobRunFilter = {
  teamId: string;
  jobType?: string;
  status?: string;
  projectId?: string;
  since?: Date;
  until?: Date;
  after?: { timestamp: string; id: string };
  limit: number;
};

/** A team's runs, newest first, keyset over (created_at, id); fetches limit + 1 rows so the caller knows if more exist. */
export function listJobRuns(db: CommonQueryMethods, filter: JobRunFilter) {
  const conditions = [sql.fragment`team_id = ${filter.teamId}`];
  if (filter.jobType) conditions.push(sql.fragment`job_type = ${filter.jobType}`);
  if (filter.status) conditions.push(sql.fragment`status = ${filter.status}`);
  if (filter.projectId) conditions.push(sql.fragment`project_id = ${filter.projectId}`);
  if (filter.since) conditions.push(sql.fragment`created_at >= ${filter.since.toISOString()}`);
  if (filter.until) conditions.push(sql.fragment`created_at <= ${filter.until.toISOString()}`);
  if (filter.after) conditions.push(sql.fragment`(created_at, id) < (${filter.after.timestamp}::timestamptz, ${filter.after.id}::uuid)`);
  return db.any(sql.type(jobRunRow)`
    select ${columns} from job_runs where ${sql.join(conditions, sql.fragment` and `)}
     order by created_at desc, id desc limit ${filter.limit + 1}`);
}

/** Running runs whose lease ended before `now`: their worker stopped heartbeating. */
export const runsWithExpiredLeases = (db: CommonQueryMethods, now: Date) =>
  db.any(sql.type(z.object({ id: z.string(), job_type: z.string(), project_id: z.string().nullable() }))`
    select id, job_type, project_id from job_runs where status = 'running' and lease_until < ${now.toISOString()}
     order by lease_until limit 100`);

/**
 * Runs still pending since before `createdBefore`: their trigger's delivery to the workers was
 * missed (no worker consumer yet, or its deliveries exhausted), so a sweep takes them instead.
 */
export const runsWaitingToStart = (db: CommonQueryMethods, createdBefore: Date) =>
  db.any(sql.type(jobRunRow)`
    select ${columns} from job_runs where status = 'pending' and created_at < ${createdBefore.toISOString()}
     order by created_at limit 100`);
