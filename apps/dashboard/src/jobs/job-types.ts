import type { Answer } from "../api/client.ts";

export type JobRun = Answer<"/v1/teams/{teamId}/jobs">["job_runs"][number];
export type JobType = JobRun["job_type"];
export type JobStatus = JobRun["status"];

/** Every type a team's list can hold (the project-scoped ones; system runs belong to no team). */
export const JOB_TYPES: { value: JobType; label: string }[] = [
  { value: "issue_scan", label: "Issue scan" },
  { value: "subprov_sync", label: "Subscription sync" },
  { value: "subprov_user_backfill", label: "Subscriber backfill" },
  { value: "adnet_sync", label: "Ad network sync" },
];

export const JOB_STATUSES: { value: JobStatus; label: string }[] = [
  { value: "pending", label: "Pending" },
  { value: "running", label: "Running" },
  { value: "completed", label: "Completed" },
  { value: "failed", label: "Failed" },
  { value: "cancelled", label: "Cancelled" },
];

export const typeLabel = (type: JobType) => JOB_TYPES.find((candidate) => candidate.value === type)?.label ?? type;
export const statusLabel = (status: JobStatus) => JOB_STATUSES.find((candidate) => candidate.value === status)?.label ?? status;

/** A run that may still change: its progress is polled and it can be cancelled. */
export const isActive = (run: JobRun) => run.status === "pending" || run.status === "running";
