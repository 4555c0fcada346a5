import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { listUsers } from "../../../projections/app-users/queries.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleApp } from "../resource-access.ts";
import { READ, userReaderOf, userScopeOf } from "../users/access.ts";
import { readUserListQuery, usersPage } from "../users/filters.ts";
import { parse, uuid } from "../validation.ts";

/** GET /v1/apps/:id/users: the users seen in one app. Registered beside the apps plugin on /v1/apps. */
export function appUserRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/:id/users", async (request) => {
      const caller = await userReaderOf(deps, request);
      const { id } = parse(z.object({ id: uuid }), request.params, "params");
      const { filter, cursor, limit } = readUserListQuery(request.query, false);
      const target = await accessibleApp(deps, caller, id, READ);
      const rows = await listUsers(deps.pool, { projectIds: [target.project_id], appId: id }, filter, { cursor, limit });
      return usersPage(rows, limit, false);
    });
  };
}

/** GET /v1/app-users: users across the caller's projects, with locales and time bounds. */
export function allAppUserRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = await userReaderOf(deps, request);
      const { filter, cursor, limit } = readUserListQuery(request.query, true);
      const scope = await userScopeOf(deps, caller, request.query);
      const rows = await listUsers(deps.pool, scope, filter, { cursor, limit });
      return usersPage(rows, limit, true);
    });
  };
}
