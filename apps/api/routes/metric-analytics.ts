import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { DAY_MS } from "../../../domain/analytics/window.ts";
import { METRIC_GROUP_BYS } from "../../../domain/metrics/aggregation.ts";
import { canonicalTrackingId, METRIC_PHASES } from "../../../domain/metrics/derive.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { activeAppsOf } from "../../../projections/derived-events/apps.ts";
import { metricBySlug } from "../../../projections/directory/definition-queries.ts";
import { aggregateMetric } from "../../../projections/metric-events/aggregate.ts";
import { listMetricEvents } from "../../../projections/metric-events/list-queries.ts";
import { parseTimeCursor, timePage } from "../analytics/cursor.ts";
import { definitionParams, environmentFilter, projectScope, requestedWindow, servedSince, textFilter, windowFields } from "../analytics/params.ts";
import { team } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { cursorParam, limitParam, parseBounds } from "../listing.ts";
import { accessibleProject } from "../resource-access.ts";
import { metricEventPage, metricQueryBody } from "../schemas/analytics.ts";
import { TAGS } from "../schemas/common.ts";
import { uuid } from "../validation.ts";
import { METRICS_READ } from "./metric-definitions.ts";

const listQuery = z.object({
  ...windowFields,
  phase: z.enum(METRIC_PHASES).optional(),
  tracking_id: textFilter.transform((value) => (value === undefined ? undefined : canonicalTrackingId(value))),
  user_id: textFilter,
  environment: environmentFilter,
  cursor: cursorParam,
  limit: limitParam(200, 50),
});

const aggregateQuery = z.object({
  ...windowFields,
  app_id: uuid.optional(),
  app_version: textFilter,
  device_model: textFilter,
  os_version: textFilter,
  user_id: textFilter,
  environment: environmentFilter,
  group_by: z.enum(METRIC_GROUP_BYS).optional(),
});

const tags = [TAGS.metrics];
const access = team(METRICS_READ);

/**
 * GET /:slug/events and /:slug/query of /v1/projects/:projectId/metrics (a second plugin on the
 * definitions' prefix). A metric must be defined to be queried; events older than the project's
 * metric retention are not served.
 */
export function metricAnalyticsRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  /** The project (404 unless the caller may read its metrics) and its active apps, once the metric is known to be defined. */
  async function metricOf(caller: Principal, { projectId, slug }: { projectId: string; slug: string }) {
    const project = await accessibleProject(deps, caller, projectId, METRICS_READ);
    if (!(await metricBySlug(deps.pool, projectId, slug))) throw notFound("metric");
    return { project, apps: await activeAppsOf(deps.pool, projectId) };
  }

  return async (app) => {
    app.get(
      "/:slug/events",
      {
        schema: {
          summary: "List a metric's events",
          description: "Newest first, paged with `cursor`. Events older than the project's metric retention are not served.",
          tags,
          params: definitionParams,
          querystring: listQuery,
          response: { 200: metricEventPage },
        },
        config: { access },
      },
      async (request) => {
        const { query } = request;
        const { slug } = request.params;
        const { project, apps } = await metricOf(request.caller, request.params);
        const now = Date.now();
        const horizon = servedSince(project, "metrics", now);
        const { since: asked, until } = parseBounds(query, now);
        const since = Math.max(horizon, asked?.getTime() ?? horizon);
        const rows = await listMetricEvents(
          deps.pool,
          {
            projectId: project.id,
            appIds: apps,
            slug,
            since: new Date(since),
            until,
            dataMode: query.data_mode,
            phase: query.phase,
            trackingId: query.tracking_id,
            userId: query.user_id,
            environment: query.environment,
          },
          { cursor: parseTimeCursor(query.cursor), limit: query.limit },
        );
        const { items, cursor, has_more } = timePage(rows, query.limit);
        return { events: [...items], cursor, has_more };
      },
    );

    app.get(
      "/:slug/query",
      {
        schema: {
          summary: "Aggregate a metric",
          description: "Counts per phase, success rate, durations, unique users and top errors over the window (default: the last 24 hours), grouped when `group_by` is given.",
          tags,
          params: definitionParams,
          querystring: aggregateQuery,
          response: { 200: metricQueryBody },
        },
        config: { access },
      },
      async (request) => {
        const { query } = request;
        const { slug } = request.params;
        const { project, apps } = await metricOf(request.caller, request.params);
        const scope = projectScope(project, "metrics", apps, { window: requestedWindow(query, DAY_MS), dataMode: query.data_mode, appId: query.app_id });
        const filters = {
          appVersion: query.app_version,
          deviceModel: query.device_model,
          osVersion: query.os_version,
          userId: query.user_id,
          environment: query.environment,
        };
        return { slug, aggregation: await aggregateMetric(deps.pool, scope, slug, filters, query.group_by) };
      },
    );
  };
}
