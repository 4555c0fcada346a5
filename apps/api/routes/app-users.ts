import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { notFound } from "../../../domain/shared/errors.ts";
import { listUsers, type UserScope } from "../../../projections/app-users/queries.ts";
import { activeApp, projectsOfTeams } from "../../../projections/directory/catalog-queries.ts";
import { authorize, checkKeyRule, visibleTeams, type Rule } from "../auth/access.ts";
import { callerOf, requirePrincipal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { readUserListQuery, usersPage } from "../users/filters.ts";
import { parse, uuid } from "../validation.ts";

const READ: Rule = { permission: "apps:read", role: "member" };

/** GET /v1/apps/:id/users: the users seen in one app. Registered beside the apps plugin on /v1/apps. */
export function appUserRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/:id/users", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, READ);
      const { id } = parse(z.object({ id: uuid }), request.params, "params");
      const { filter, cursor, limit } = readUserListQuery(request.query, false);
      const target = await activeApp(deps.pool, id);
      if (!target) throw notFound("app");
      await authorize(deps, caller, target.team_id, READ, "app");
      const rows = await listUsers(deps.pool, { projectIds: [target.project_id], appId: id }, filter, { cursor, limit });
      return usersPage(rows, limit, false);
    });
  };
}

const scopeQuery = z.object({ team_id: uuid.optional(), project_id: uuid.optional(), app_id: uuid.optional() }).passthrough();

/**
 * The projects (and app) a cross-app query covers: the caller's visible teams narrowed by
 * `team_id`, `project_id` and `app_id`. Narrowing to something the caller cannot see gives an
 * empty scope, as lists do elsewhere.
 */
export async function userScopeOf(deps: ApiDeps, caller: Parameters<typeof visibleTeams>[1], query: unknown): Promise<UserScope & { narrowed: boolean }> {
  const q = parse(scopeQuery, query, "query");
  const teams = await visibleTeams(deps, caller, READ, q.team_id);
  let projectIds = (await projectsOfTeams(deps.pool, teams)).map((project) => project.id);
  if (q.project_id !== undefined) projectIds = projectIds.filter((id) => id === q.project_id);
  if (q.app_id === undefined) return { projectIds, narrowed: q.project_id !== undefined };
  const target = await activeApp(deps.pool, q.app_id);
  const visible = target !== null && projectIds.includes(target.project_id);
  return { projectIds: visible ? [target.project_id] : [], appId: q.app_id, narrowed: true };
}

/** GET /v1/app-users: users across the caller's projects, with locales and time bounds. */
export function allAppUserRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, READ);
      const { filter, cursor, limit } = readUserListQuery(request.query, true);
      const scope = await userScopeOf(deps, caller, request.query);
      const rows = await listUsers(deps.pool, scope, filter, { cursor, limit });
      return usersPage(rows, limit, true);
    });
  };
}
