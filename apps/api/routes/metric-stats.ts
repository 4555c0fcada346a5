import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { DAY_MS, type DataMode, type TimeWindow } from "../../../domain/analytics/window.ts";
import { successRate } from "../../../domain/metrics/aggregation.ts";
import { activeAppsOf } from "../../../projections/derived-events/apps.ts";
import type { ProjectRow } from "../../../projections/directory/catalog-queries.ts";
import { metricsOfProject, metricsOfTeams } from "../../../projections/directory/definition-queries.ts";
import { outcomesBySlug, type OutcomeCounts } from "../../../projections/metric-events/stats-queries.ts";
import { projectScope, requestedWindow, scopeFields, windowFields } from "../analytics/params.ts";
import { projectsWithApps } from "../analytics/projects.ts";
import { team, visibleTeams } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../resource-access.ts";
import { metricCompletionsBody, metricStatBody } from "../schemas/analytics.ts";
import { projectParams, TAGS } from "../schemas/common.ts";
import { uuid } from "../validation.ts";
import { METRICS_READ } from "./metric-definitions.ts";

type Request = { window: TimeWindow; dataMode: DataMode; appId?: string };

/** Complete and fail counts of `slugs` in one project, within its retention and active apps. */
const projectOutcomes = (deps: ApiDeps, project: ProjectRow, apps: readonly string[], slugs: readonly string[], request: Request) =>
  outcomesBySlug(deps.pool, projectScope(project, "metrics", apps, request), slugs);

const statOf = (slug: string, counts: OutcomeCounts | undefined) => {
  const complete = counts?.complete ?? 0;
  const fail = counts?.fail ?? 0;
  return { slug, complete_count: complete, fail_count: fail, success_rate: successRate(complete, fail) };
};

const tags = [TAGS.metrics];
const access = team(METRICS_READ);
const statsDescription = "One row per active metric definition, those without events included; the window defaults to the last 24 hours.";

/** GET /v1/projects/:projectId/metric-stats: one row per metric definition, zero-event ones included. */
export function projectMetricStatsRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "Outcomes of a project's metrics",
          description: statsDescription,
          tags,
          params: projectParams,
          querystring: z.object(windowFields),
          response: { 200: z.object({ stats: z.array(metricStatBody) }) },
        },
        config: { access },
      },
      async (request) => {
        const { projectId } = request.params;
        const project = await accessibleProject(deps, request.caller, projectId, METRICS_READ);
        const definitions = await metricsOfProject(deps.pool, projectId);
        const apps = await activeAppsOf(deps.pool, projectId);
        const slugs = definitions.map((metric) => metric.slug);
        const window = requestedWindow(request.query, DAY_MS);
        const outcomes = await projectOutcomes(deps, project, apps, slugs, { window, dataMode: request.query.data_mode });
        return { stats: slugs.map((slug) => statOf(slug, outcomes.get(slug))) };
      },
    );
  };
}

/** GET /v1/metric-stats and GET /v1/metrics/completions/count (register with prefix /v1). */
export function teamMetricAnalyticsRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/metric-stats",
      {
        schema: {
          summary: "Outcomes of a team's metrics",
          description: `${statsDescription} Rows carry their \`project_id\`; a team the caller cannot see gives no rows.`,
          tags,
          querystring: z.object({ ...windowFields, team_id: uuid }),
          response: { 200: z.object({ stats: z.array(metricStatBody.extend({ project_id: z.string().uuid() })) }) },
        },
        config: { access },
      },
      async (request) => {
        const { query } = request;
        const teams = await visibleTeams(deps, request.caller, METRICS_READ, query.team_id);
        if (teams.length === 0) return { stats: [] };
        const window = requestedWindow(query, DAY_MS);
        const definitions = await metricsOfTeams(deps.pool, teams);
        const projects = await projectsWithApps(deps, teams);
        const stats = await Promise.all(
          projects.map(async ({ project, apps }) => {
            const slugs = definitions.filter((metric) => metric.project_id === project.id).map((metric) => metric.slug);
            const outcomes = await projectOutcomes(deps, project, apps, slugs, { window, dataMode: query.data_mode });
            return slugs.map((slug) => ({ project_id: project.id, ...statOf(slug, outcomes.get(slug)) }));
          }),
        );
        return { stats: stats.flat() };
      },
    );

    app.get(
      "/metrics/completions/count",
      {
        schema: {
          summary: "Count completed and failed metric operations",
          description: "Over every active metric of the projects the caller can read, narrowed by team, project or app.",
          tags,
          querystring: z.object({ ...windowFields, ...scopeFields }),
          response: { 200: metricCompletionsBody },
        },
        config: { access },
      },
      async (request) => {
        const { query } = request;
        const teams = await visibleTeams(deps, request.caller, METRICS_READ, query.team_id);
        if (teams.length === 0) return { count: 0, failed: 0 };
        const window = requestedWindow(query, DAY_MS);
        const definitions = await metricsOfTeams(deps.pool, teams);
        const projects = await projectsWithApps(deps, teams, query.project_id);
        const perProject = await Promise.all(
          projects.map(async ({ project, apps }) => {
            const slugs = definitions.filter((metric) => metric.project_id === project.id).map((metric) => metric.slug);
            return projectOutcomes(deps, project, apps, slugs, { window, dataMode: query.data_mode, appId: query.app_id });
          }),
        );
        let count = 0;
        let failed = 0;
        for (const outcomes of perProject) {
          for (const counts of outcomes.values()) {
            count += counts.complete;
            failed += counts.fail;
          }
        }
        return { count, failed };
      },
    );
  };
}
