import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { notFound } from "../../../domain/shared/errors.ts";
import { localeDemand, supportedLanguages } from "../../../projections/app-users/locale-queries.ts";
import { activeApp } from "../../../projections/directory/catalog-queries.ts";
import { team } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { dataModeParam } from "../listing.ts";
import { accessibleProject } from "../resource-access.ts";
import { projectParams, TAGS } from "../schemas/common.ts";
import { exampleLocaleDemand, exampleUnscopedLocaleDemand, localeDemandBody } from "../schemas/locales.ts";
import { READ, scopeQuery, userScopeOf } from "../users/access.ts";
import { uuid } from "../validation.ts";

const tags = [TAGS.users];

/** GET /v1/projects/:projectId/users/locales: locale demand of one project or one of its apps. */
export function projectLocaleRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "Locale demand of a project's users",
          description: "Narrowed to one app with `app_id`; `shipped` compares each locale with the languages the apps ship.",
          tags,
          params: projectParams,
          querystring: z.object({ app_id: uuid.optional(), data_mode: dataModeParam }),
          response: { 200: localeDemandBody },
          examples: { 200: exampleLocaleDemand },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const { app_id: appId, data_mode: dataMode } = request.query;
        const project = await accessibleProject(deps, request.caller, request.params.projectId, READ);
        if (appId !== undefined) {
          const target = await activeApp(deps.pool, appId);
          if (!target || target.project_id !== project.id) throw notFound("app");
        }
        const scope = { projectIds: [project.id], appId };
        return localeDemand(deps.pool, scope, dataMode, await supportedLanguages(deps.pool, scope));
      },
    );
  };
}

/**
 * GET /v1/users/locales: locale demand across the caller's projects. Narrowed to a project or an
 * app it flags languages the apps do not ship; across projects there is no one set of shipped
 * languages to compare with, so `supported_languages` is null.
 */
export function userLocaleRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "Locale demand across the caller's projects",
          description: "Without a project or app to narrow to, `supported_languages` is null and no locale is flagged.",
          tags,
          querystring: scopeQuery.extend({ data_mode: dataModeParam }),
          response: { 200: localeDemandBody },
          examples: { 200: exampleUnscopedLocaleDemand },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const scope = await userScopeOf(deps, request.caller, request.query);
        const supported = scope.narrowed && scope.projectIds.length > 0 ? await supportedLanguages(deps.pool, scope) : null;
        return localeDemand(deps.pool, scope, request.query.data_mode, supported);
      },
    );
  };
}
