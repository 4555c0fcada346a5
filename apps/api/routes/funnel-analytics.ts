import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { DAY_MS } from "../../../domain/analytics/window.ts";
import { FUNNEL_BREAKDOWNS, FUNNEL_MODES } from "../../../domain/funnels/analytics.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { activeAppsOf } from "../../../projections/derived-events/apps.ts";
import { funnelBySlug, funnelsOfTeams } from "../../../projections/directory/definition-queries.ts";
import { funnelAnalytics, funnelCompletions } from "../../../projections/funnel-events/analytics.ts";
import { checkKeyRule, visibleTeams } from "../auth/access.ts";
import { callerOf, requirePrincipal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../resource-access.ts";
import { parse, uuid } from "../validation.ts";
import { definitionParams, environmentFilter, projectScope, requestedWindow, scopeFields, textFilter, windowFields } from "../analytics/params.ts";
import { projectsWithApps } from "../analytics/projects.ts";
import { FUNNELS_READ } from "./funnel-definitions.ts";

/** Funnel queries look back 30 days unless told otherwise (the spec's default). */
const DEFAULT_SPAN_MS = 30 * DAY_MS;

const analyticsQuery = z.object({
  ...windowFields,
  app_id: uuid.optional(),
  app_version: textFilter,
  environment: environmentFilter,
  mode: z.enum(FUNNEL_MODES).default("open"),
  group_by: z.enum(FUNNEL_BREAKDOWNS).optional(),
});

/** GET /:slug/query of /v1/projects/:projectId/funnels (a second plugin on the definitions' prefix). */
export function funnelAnalyticsRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/:slug/query", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, FUNNELS_READ);
      const { projectId, slug } = parse(definitionParams, request.params, "params");
      const query = parse(analyticsQuery, request.query, "query");
      const project = await accessibleProject(deps, caller, projectId, FUNNELS_READ);
      const funnel = await funnelBySlug(deps.pool, projectId, slug);
      if (!funnel) throw notFound("funnel");
      const asked = { window: requestedWindow(query, DEFAULT_SPAN_MS), dataMode: query.data_mode, appId: query.app_id };
      const scope = { ...projectScope(project, "funnels", await activeAppsOf(deps.pool, projectId), asked), appVersion: query.app_version, environment: query.environment };
      return { slug, analytics: await funnelAnalytics(deps.pool, scope, funnel, query.mode, query.group_by) };
    });
  };
}

/**
 * GET /v1/funnels/completions/count: over every active funnel the caller can read, users who
 * reached the last step (`count`) and users who reached the first or the last (`started`).
 */
export function funnelCompletionRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/completions/count", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      const query = parse(z.object({ ...windowFields, ...scopeFields }), request.query, "query");
      const teams = await visibleTeams(deps, caller, FUNNELS_READ, query.team_id);
      if (teams.length === 0) return { count: 0, started: 0 };
      const asked = { window: requestedWindow(query, DEFAULT_SPAN_MS), dataMode: query.data_mode, appId: query.app_id };
      const projects = await projectsWithApps(deps, teams, query.project_id);
      const funnels = await funnelsOfTeams(deps.pool, teams);
      const totals = await Promise.all(
        projects.flatMap(({ project, apps }) => {
          const scope = projectScope(project, "funnels", apps, asked);
          return funnels
            .filter((funnel) => funnel.project_id === project.id)
            .map((funnel) => funnelCompletions(deps.pool, scope, funnel.steps.map((step) => step.event_filter)));
        }),
      );
      return {
        count: totals.reduce((sum, total) => sum + total.count, 0),
        started: totals.reduce((sum, total) => sum + total.started, 0),
      };
    });
  };
}
