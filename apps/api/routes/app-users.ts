import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { listUsers } from "../../../projections/app-users/queries.ts";
import { team } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleApp } from "../resource-access.ts";
import { idParams, TAGS } from "../schemas/common.ts";
import { appUserPageBody, appUserWithLocalePageBody, exampleAppUserPage, exampleAppUserWithLocalePage } from "../schemas/users.ts";
import { READ, scopeQuery, userScopeOf } from "../users/access.ts";
import { userListOf, userListQuery, userListQueryWithBounds, usersPage, withoutLocales } from "../users/filters.ts";

const tags = [TAGS.users];

/** GET /v1/apps/:id/users: the users seen in one app. Registered beside the apps plugin on /v1/apps. */
export function appUserRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/:id/users",
      {
        schema: {
          summary: "List the users seen in an app",
          description: "Most recently seen first.",
          tags,
          params: idParams,
          querystring: userListQuery,
          response: { 200: appUserPageBody },
          examples: { 200: exampleAppUserPage },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const { id } = request.params;
        const { filter, cursor, limit } = userListOf(request.query);
        const target = await accessibleApp(deps, request.caller, id, READ);
        const rows = await listUsers(deps.pool, { projectIds: [target.project_id], appId: id }, filter, { cursor, limit });
        return usersPage(rows, limit, withoutLocales);
      },
    );
  };
}

/** GET /v1/app-users: users across the caller's projects, with locales and time bounds. */
export function allAppUserRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "List users across the caller's projects",
          description: "Most recently seen first; `since`/`until` bound last_seen_at. Narrowing to a team, project or app the caller cannot see gives an empty list.",
          tags,
          querystring: userListQueryWithBounds.merge(scopeQuery),
          response: { 200: appUserWithLocalePageBody },
          examples: { 200: exampleAppUserWithLocalePage },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const { filter, cursor, limit } = userListOf(request.query);
        const scope = await userScopeOf(deps, request.caller, request.query);
        const rows = await listUsers(deps.pool, scope, filter, { cursor, limit });
        return usersPage(rows, limit, (row) => row);
      },
    );
  };
}
