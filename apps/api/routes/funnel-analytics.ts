import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { DAY_MS } from "../../../domain/analytics/window.ts";
import { FUNNEL_BREAKDOWNS, FUNNEL_MODES } from "../../../domain/funnels/analytics.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { activeAppsOf } from "../../../projections/derived-events/apps.ts";
import { funnelBySlug, funnelsOfTeams } from "../../../projections/directory/definition-queries.ts";
import { funnelAnalytics, funnelCompletions } from "../../../projections/funnel-events/analytics.ts";
import { definitionParams, environmentFilter, projectScope, requestedWindow, scopeFields, textFilter, windowFields } from "../analytics/params.ts";
import { projectsWithApps } from "../analytics/projects.ts";
import { team, visibleTeams } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../resource-access.ts";
import { funnelCompletionsBody, funnelQueryBody } from "../schemas/analytics.ts";
import { TAGS } from "../schemas/common.ts";
import { uuid } from "../validation.ts";
import { FUNNELS_READ } from "./funnel-definitions.ts";

/** Funnel queries look back 30 days unless told otherwise (the spec's default). */
const DEFAULT_SPAN_MS = 30 * DAY_MS;

const analyticsQuery = z.object({
  ...windowFields,
  app_id: uuid.optional(),
  app_version: textFilter,
  environment: environmentFilter,
  mode: z.enum(FUNNEL_MODES).default("open").describe("closed: a step counts only users who did the previous one earlier"),
  group_by: z.enum(FUNNEL_BREAKDOWNS).optional(),
});

const tags = [TAGS.funnels];
const access = team(FUNNELS_READ);

/** GET /:slug/query of /v1/projects/:projectId/funnels (a second plugin on the definitions' prefix). */
export function funnelAnalyticsRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/:slug/query",
      {
        schema: {
          summary: "Funnel conversion",
          description: "Users reaching each step over the window (default: the last 30 days), with drop-offs, broken down when `group_by` is given.",
          tags,
          params: definitionParams,
          querystring: analyticsQuery,
          response: { 200: funnelQueryBody },
        },
        config: { access },
      },
      async (request) => {
        const { query } = request;
        const { projectId, slug } = request.params;
        const project = await accessibleProject(deps, request.caller, projectId, FUNNELS_READ);
        const funnel = await funnelBySlug(deps.pool, projectId, slug);
        if (!funnel) throw notFound("funnel");
        const asked = { window: requestedWindow(query, DEFAULT_SPAN_MS), dataMode: query.data_mode, appId: query.app_id };
        const scope = { ...projectScope(project, "funnels", await activeAppsOf(deps.pool, projectId), asked), appVersion: query.app_version, environment: query.environment };
        return { slug, analytics: await funnelAnalytics(deps.pool, scope, funnel, query.mode, query.group_by, deps.funnelDays) };
      },
    );
  };
}

/**
 * GET /v1/funnels/completions/count: over every active funnel the caller can read, users who
 * reached the last step (`count`) and users who reached the first or the last (`started`).
 */
export function funnelCompletionRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/completions/count",
      {
        schema: {
          summary: "Count funnel completions",
          description: "Summed over every active funnel of the projects the caller can read, narrowed by team, project or app.",
          tags,
          querystring: z.object({ ...windowFields, ...scopeFields }),
          response: { 200: funnelCompletionsBody },
        },
        config: { access },
      },
      async (request) => {
        const { query } = request;
        const teams = await visibleTeams(deps, request.caller, FUNNELS_READ, query.team_id);
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
      },
    );
  };
}
