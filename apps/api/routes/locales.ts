import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { notFound } from "../../../domain/shared/errors.ts";
import { localeDemand, supportedLanguages } from "../../../projections/app-users/locale-queries.ts";
import { activeApp } from "../../../projections/directory/catalog-queries.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../resource-access.ts";
import { READ, userReaderOf, userScopeOf } from "../users/access.ts";
import { dataModeSchema } from "../users/filters.ts";
import { parse, uuid } from "../validation.ts";

/** GET /v1/projects/:projectId/users/locales: locale demand of one project or one of its apps. */
export function projectLocaleRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = await userReaderOf(deps, request);
      const { projectId } = parse(z.object({ projectId: uuid }), request.params, "params");
      const query = parse(z.object({ app_id: uuid.optional(), data_mode: dataModeSchema }).passthrough(), request.query, "query");
      const project = await accessibleProject(deps, caller, projectId, READ);
      if (query.app_id !== undefined) {
        const target = await activeApp(deps.pool, query.app_id);
        if (!target || target.project_id !== project.id) throw notFound("app");
      }
      const scope = { projectIds: [project.id], appId: query.app_id };
      return localeDemand(deps.pool, scope, query.data_mode, await supportedLanguages(deps.pool, scope));
    });
  };
}

/**
 * GET /v1/users/locales: locale demand across the caller's projects. Narrowed to a project or an
 * app it flags languages the apps do not ship; across projects there is no one set of shipped
 * languages to compare with, so `supported_languages` is null.
 */
export function userLocaleRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = await userReaderOf(deps, request);
      const { data_mode: dataMode } = parse(z.object({ data_mode: dataModeSchema }).passthrough(), request.query, "query");
      const scope = await userScopeOf(deps, caller, request.query);
      const supported = scope.narrowed && scope.projectIds.length > 0 ? await supportedLanguages(deps.pool, scope) : null;
      return localeDemand(deps.pool, scope, dataMode, supported);
    });
  };
}
