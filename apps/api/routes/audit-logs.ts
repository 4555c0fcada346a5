import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { AUDIT_ACTIONS, listAuditLogs } from "../../../projections/audit/queries.ts";
import { authorize, team, type Rule } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { page, pageQuery, parseBounds, parseKeysetCursor } from "../listing.ts";
import { auditLogPageBody, exampleAuditLogPage } from "../schemas/audit-logs.ts";
import { uuid } from "../validation.ts";

/** Agent keys with `audit_logs:read` of the team, or users with the admin role. */
const READ_AUDIT: Rule = { permission: "audit_logs:read", role: "admin" };

const auditQuery = pageQuery.extend({
  resource_type: z.string().max(50).optional(),
  resource_id: z.string().max(200).optional(),
  actor_id: z.string().max(200).optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
});

/** GET /v1/teams/:teamId/audit-logs (register with prefix /v1/teams). */
export function auditLogRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/:teamId/audit-logs",
      {
        schema: {
          summary: "List a team's audit log",
          description: "Create, update and delete actions on the team's resources, newest first.",
          tags: ["teams"],
          params: z.object({ teamId: uuid }),
          querystring: auditQuery,
          response: { 200: auditLogPageBody },
          examples: { 200: exampleAuditLogPage },
        },
        config: { access: team(READ_AUDIT) },
      },
      async (request) => {
        const { teamId } = request.params;
        const { query } = request;
        // A team that is not the caller's is a 404, whatever the role: its existence is not revealed.
        await authorize(deps, request.caller, teamId, READ_AUDIT, "team");
        const rows = await listAuditLogs(deps.pool, {
          teamId,
          resourceType: query.resource_type,
          resourceId: query.resource_id,
          actorId: query.actor_id,
          action: query.action,
          ...parseBounds(query),
          after: parseKeysetCursor(query.cursor),
          limit: query.limit,
        });
        const result = page(rows, query.limit, (row) => `${row.timestamp}|${row.id}`);
        return { audit_logs: [...result.items], cursor: result.cursor, has_more: result.has_more };
      },
    );
  };
}
