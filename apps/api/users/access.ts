import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { UserScope } from "../../../projections/app-users/queries.ts";
import { activeApp, projectsOfTeams } from "../../../projections/directory/catalog-queries.ts";
import { checkKeyRule, visibleTeams, type Rule } from "../auth/access.ts";
import { callerOf, requirePrincipal, type Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { parse, uuid } from "../validation.ts";

/** Reading app users and their locales: the apps:read permission for keys, member for users. */
export const READ: Rule = { permission: "apps:read", role: "member" };

/** The caller of a users read; a key's permission is checked before any lookup or parse. */
export async function userReaderOf(deps: ApiDeps, request: FastifyRequest): Promise<Principal> {
  const caller = requirePrincipal(await callerOf(deps, request));
  checkKeyRule(caller, READ);
  return caller;
}

const scopeQuery = z.object({ team_id: uuid.optional(), project_id: uuid.optional(), app_id: uuid.optional() }).passthrough();

/**
 * The projects (and app) a cross-app query covers: the caller's visible teams narrowed by
 * `team_id`, `project_id` and `app_id`. Narrowing to something the caller cannot see gives an
 * empty scope, as lists do elsewhere.
 */
export async function userScopeOf(deps: ApiDeps, caller: Principal, query: unknown): Promise<UserScope & { narrowed: boolean }> {
  const q = parse(scopeQuery, query, "query");
  const teams = await visibleTeams(deps, caller, READ, q.team_id);
  let projectIds = (await projectsOfTeams(deps.pool, teams)).map((project) => project.id);
  if (q.project_id !== undefined) projectIds = projectIds.filter((id) => id === q.project_id);
  if (q.app_id === undefined) return { projectIds, narrowed: q.project_id !== undefined };
  const target = await activeApp(deps.pool, q.app_id);
  const visible = target !== null && projectIds.includes(target.project_id);
  return { projectIds: visible ? [target.project_id] : [], appId: q.app_id, narrowed: true };
}
