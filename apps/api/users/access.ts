import { z } from "zod";
import type { UserScope } from "../../../projections/app-users/queries.ts";
import { activeApp, projectsOfTeams } from "../../../projections/directory/catalog-queries.ts";
import { scopeFields } from "../analytics/params.ts";
import { visibleTeams, type Rule } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";

/** Reading app users and their locales: the apps:read permission for keys, member for users. */
export const READ: Rule = { permission: "apps:read", role: "member" };

/** The narrowing of a cross-app users query. */
export const scopeQuery = z.object(scopeFields);

/**
 * The projects (and app) a cross-app query covers: the caller's visible teams narrowed by
 * `team_id`, `project_id` and `app_id`. Narrowing to something the caller cannot see gives an
 * empty scope, as lists do elsewhere.
 */
export async function userScopeOf(deps: ApiDeps, caller: Principal, query: z.infer<typeof scopeQuery>): Promise<UserScope & { narrowed: boolean }> {
  const teams = await visibleTeams(deps, caller, READ, query.team_id);
  let projectIds = (await projectsOfTeams(deps.pool, teams)).map((project) => project.id);
  if (query.project_id !== undefined) projectIds = projectIds.filter((id) => id === query.project_id);
  if (query.app_id === undefined) return { projectIds, narrowed: query.project_id !== undefined };
  const target = await activeApp(deps.pool, query.app_id);
  const visible = target !== null && projectIds.includes(target.project_id);
  return { projectIds: visible ? [target.project_id] : [], appId: query.app_id, narrowed: true };
}
