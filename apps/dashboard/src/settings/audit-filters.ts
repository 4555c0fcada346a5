import type { Answer } from "../api/client.ts";

export type AuditEntry = Answer<"/v1/teams/{teamId}/audit-logs">["audit_logs"][number];
export type AuditAction = AuditEntry["action"];

/** What the audit log records (SPEC, Audit log entry, plus attachments and feedback). */
export const RESOURCE_TYPES = [
  "project",
  "app",
  "api_key",
  "team",
  "team_member",
  "invitation",
  "integration",
  "metric_definition",
  "funnel_definition",
  "issue",
  "job_run",
  "user",
  "attachment",
  "feedback",
] as const;

export const ACTIONS: AuditAction[] = ["create", "update", "delete"];

export const resourceLabel = (type: string) => type.replace(/_/g, " ");

/**
 * `since` and `until` travel in the URL as the `datetime-local` value the person typed (their own
 * time zone, readable in a shared link) and go to the API as ISO instants.
 */
export function instantOf(local: string | null): string | undefined {
  if (!local) return undefined;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}
