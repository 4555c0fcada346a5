import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { forbidden, notFound } from "../../../domain/shared/errors.ts";
import { atLeast } from "../../../domain/shared/roles.ts";
import { listAuditLogs } from "../../../projections/audit/queries.ts";
import { memberRole } from "../../../projections/directory/queries.ts";
import { callerOf, requirePrincipal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { page, pageQuery, parseBounds, parseKeysetCursor } from "../listing.ts";
import { parse, uuid } from "../validation.ts";

const auditQuery = pageQuery.extend({
  resource_type: z.string().max(50).optional(),
  resource_id: z.string().max(200).optional(),
  actor_id: z.string().max(200).optional(),
  action: z.enum(["create", "update", "delete"]).optional(),
});

/** GET /v1/teams/:teamId/audit-logs: agent keys with `audit_logs:read` of the team, or users with the admin role. */
export function auditLogRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/:teamId/audit-logs", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      const { teamId } = parse(z.object({ teamId: uuid }), request.params, "params");
      if (caller.kind === "key") {
        if (caller.teamId !== teamId) throw notFound("team");
        if (!caller.permissions.includes("audit_logs:read")) throw forbidden("requires the audit_logs:read permission");
      } else {
        const role = await memberRole(deps.pool, teamId, caller.userId);
        if (!role) throw notFound("team");
        if (!atLeast(role, "admin")) throw forbidden("requires the admin role");
      }
      const query = parse(auditQuery, request.query, "query");
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
      return { audit_logs: result.items, cursor: result.cursor, has_more: result.has_more };
    });
  };
}
