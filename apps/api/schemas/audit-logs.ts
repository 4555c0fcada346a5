import { z } from "zod";
import { actorSchema } from "../../../domain/shared/envelope.ts";
import { AUDIT_ACTIONS } from "../../../projections/audit/queries.ts";
import { pageQuery } from "../listing.ts";
import { uuid } from "../validation.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

/** `/v1/teams/:teamId/audit-logs`. */
export const auditTeamParams = z.object({ teamId: uuid });

export const auditQuery = pageQuery.extend({
  resource_type: z.string().max(50).optional(),
  resource_id: z.string().max(200).optional(),
  actor_id: z.string().max(200).optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
});

/** One audit log entry (SPEC, Audit log entry). */
export const auditLogBody = z.object({
  id: z.string().uuid(),
  team_id: z.string().uuid(),
  actor_type: actorSchema.shape.type,
  actor_id: z.string().nullable(),
  action: z.enum(AUDIT_ACTIONS),
  resource_type: z
    .string()
    .describe("app, project, api_key, team, team_member, invitation, metric_definition, funnel_definition, user, integration, issue, job_run"),
  resource_id: z.string(),
  changes: z.record(z.unknown()).nullable().describe("For updates `{field: {before, after}}`"),
  metadata: z.record(z.unknown()).nullable(),
  timestamp,
});

export const auditLogPageBody = z.object({
  audit_logs: z.array(auditLogBody),
  cursor: z.string().nullable().describe("`<timestamp>|<id>`; null when has_more is false"),
  has_more: z.boolean(),
});

export const exampleAuditLogPage = {
  audit_logs: [
    {
      id: "2e1d0c9b-8a7f-4e6d-9c5b-4a3f2e1d0c9b",
      team_id: EXAMPLE.teamId,
      actor_type: "user",
      actor_id: EXAMPLE.userId,
      action: "update",
      resource_type: "team",
      resource_id: EXAMPLE.teamId,
      changes: { name: { before: "Acme", after: "Acme Inc." } },
      metadata: null,
      timestamp: EXAMPLE.at,
    },
  ],
  cursor: null,
  has_more: false,
} satisfies z.input<typeof auditLogPageBody>;
