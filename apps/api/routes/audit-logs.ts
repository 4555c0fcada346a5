import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { listAuditLogs } from "../../../projections/audit/queries.ts";
import { team } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { page, parseBounds, parseKeysetCursor } from "../listing.ts";
import { auditLogPageBody, auditQuery, auditTeamParams, exampleAuditLogPage } from "../schemas/audit-logs.ts";
import { TAGS } from "../schemas/common.ts";

/**
 * Agent keys with `audit_logs:read` of the team, or users with the admin role. The plugin checks
 * the key's permission first (403 whatever team it names), then the team the path names (404 for
 * a team that is not the caller's, whatever the query), before the query is read.
 */
const READ_AUDIT = team({ permission: "audit_logs:read", role: "admin" }, { teamParam: "teamId" });

/** GET /v1/teams/:teamId/audit-logs (register with prefix /v1/teams). */
export function auditLogRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/:teamId/audit-logs",
      {
        schema: {
          summary: "List a team's audit log",
          description: "Create, update and delete actions on the team's resources, newest first.",
          tags: [TAGS.auditLogs],
          params: auditTeamParams,
          querystring: auditQuery,
          response: { 200: auditLogPageBody },
          examples: { 200: exampleAuditLogPage },
        },
        config: { access: READ_AUDIT },
      },
      async (request) => {
        const { teamId } = request.params;
        const { query } = request;
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
