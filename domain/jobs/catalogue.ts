/**
 * The job types and who may start them. Project-scoped types run for one project and may be
 * triggered through the API; system types run for the whole installation on a schedule only.
 * docs/jobs.md documents each type's schedule, params and result.
 */
export const PROJECT_JOB_TYPES = ["issue_scan", "subprov_sync", "subprov_user_backfill", "adnet_sync"] as const;
export const SYSTEM_JOB_TYPES = ["attachment_cleanup", "notification_cleanup", "retention_cleanup", "app_ratings_sync", "issue_digest"] as const;
export const JOB_TYPES = [...PROJECT_JOB_TYPES, ...SYSTEM_JOB_TYPES] as const;

export type ProjectJobType = (typeof PROJECT_JOB_TYPES)[number];
export type SystemJobType = (typeof SYSTEM_JOB_TYPES)[number];
export type JobType = (typeof JOB_TYPES)[number];

export const JOB_STATUSES = ["pending", "running", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const isJobType = (value: string): value is JobType => (JOB_TYPES as readonly string[]).includes(value);
export const isSystemJobType = (value: string): value is SystemJobType => (SYSTEM_JOB_TYPES as readonly string[]).includes(value);

/** Pending and running runs block another run of the same type for the same project. */
export const isActive = (status: JobStatus): boolean => status === "pending" || status === "running";

/**
 * The scope token of a run's subject: the project for project-scoped types, `system` otherwise.
 * One subject per (scope, type) makes "one active run per type and project" a single aggregate's
 * rule, decided atomically by the subject's optimistic concurrency.
 */
export const jobScope = (projectId: string | null): string => projectId ?? "system";

/** `manual:user:<id>`, `manual:api_key:<id>` or `schedule` (SPEC, Job run). */
export type TriggeredBy = `manual:user:${string}` | `manual:api_key:${string}` | "schedule";
