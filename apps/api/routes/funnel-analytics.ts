import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { FUNNEL_BREAKDOWNS, FUNNEL_MODES } from "../../../domain/funnels/analytics.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { SLUG_PATTERN } from "../../../domain/shared/ids.ts";
import { activeAppsByProject } from "../../../projections/derived-events/apps.ts";
import { projectsOfTeams } from "../../../projections/directory/catalog-queries.ts";
import { funnelBySlug, funnelsOfTeams } from "../../../projections/directory/definition-queries.ts";
import { funnelAnalytics, funnelCompletions } from "../../../projections/funnel-events/analytics.ts";
import { checkKeyRule, visibleTeams } from "../auth/access.ts";
import { callerOf, requirePrincipal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../project-access.ts";
import { parse, uuid } from "../validation.ts";
import { DAY_MS, environmentFilter, narrowApps, requestedWindow, scopeFields, servedWindow, textFilter, windowFields } from "../analytics/params.ts";
import { FUNNELS_READ } from "./funnel-definitions.ts";

/** Funnel queries look back 30 days unless told otherwise (the spec's default). */
const DEFAULT_SPAN_MS = 30 * DAY_MS;

const funnelParams = z.object({ projectId: uuid, slug: z.string().min(1).max(100).regex(SLUG_PATTERN, "must match ^[a-z0-9-]+$") });

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
      const { projectId, slug } = parse(funnelParams, request.params, "params");
      const query = parse(analyticsQuery, request.query, "query");
      const project = await accessibleProject(deps, caller, projectId, FUNNELS_READ);
      const funnel = await funnelBySlug(deps.pool, projectId, slug);
      if (!funnel) throw notFound("funnel");
      const requested = requestedWindow(query, DEFAULT_SPAN_MS);
      const window = servedWindow(project, "funnels", requested);
      const apps = (await activeAppsByProject(deps.pool, [projectId])).get(projectId) ?? [];
      const scope = {
        projectId,
        appIds: window ? narrowApps(apps, query.app_id) : [],
        dataMode: query.data_mode,
        appVersion: query.app_version,
        environment: query.environment,
        ...(window ?? requested),
      };
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
      const teams = await visibleTeams(deps, caller, FUNNELS_READ, query.team_id?.toLowerCase());
      if (teams.length === 0) return { count: 0, started: 0 };
      const requested = requestedWindow(query, DEFAULT_SPAN_MS);
      const projects = (await projectsOfTeams(deps.pool, teams)).filter((project) => query.project_id === undefined || project.id === query.project_id.toLowerCase());
      const apps = await activeAppsByProject(deps.pool, projects.map((project) => project.id));
      const funnels = await funnelsOfTeams(deps.pool, teams);
      const totals = await Promise.all(
        projects.flatMap((project) => {
          const window = servedWindow(project, "funnels", requested);
          const appIds = window ? narrowApps(apps.get(project.id) ?? [], query.app_id) : [];
          const scope = { projectId: project.id, appIds, dataMode: query.data_mode, ...(window ?? requested) };
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
