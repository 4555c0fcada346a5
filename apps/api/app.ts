import { randomUUID } from "node:crypto";
import cookie from "@fastify/cookie";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { ApiDeps } from "./deps.ts";
import { jobRunRoutes, teamJobRoutes } from "./routes/jobs.ts";
import { registerAuth } from "./plugins/auth.ts";
import { registerDashboard } from "./plugins/dashboard.ts";
import { registerErrorHandling } from "./plugins/errors.ts";
import { redactingSerializers } from "./plugins/log-redaction.ts";
import { registerOpenApi } from "./plugins/openapi.ts";
import { registerRequestMetrics } from "./plugins/request-metrics.ts";
import { readRequestInput } from "./plugins/request-input.ts";
import { registerRouteSchemas } from "./plugins/route-schemas.ts";
import { allAppUserRoutes, appUserRoutes } from "./routes/app-users.ts";
import { appRoutes } from "./routes/apps.ts";
import { attachmentDownloadRoutes } from "./routes/attachment-download.ts";
import { attachmentIngestRoutes } from "./routes/attachment-ingest.ts";
import { attachmentRoutes, attachmentUsageRoutes } from "./routes/attachments.ts";
import { feedbackCommentRoutes } from "./routes/feedback-comments.ts";
import { feedbackSubmitRoutes } from "./routes/feedback-submit.ts";
import { feedbackRoutes } from "./routes/feedback.ts";
import { issueCommentRoutes } from "./routes/issue-comments.ts";
import { issueOverviewRoutes } from "./routes/issues-overview.ts";
import { projectAdsRoutes, teamAdsRoutes } from "./routes/ads.ts";
import { issueRoutes } from "./routes/issues.ts";
import { integrationRoutes } from "./routes/integrations.ts";
import { subprovSyncRoutes } from "./routes/subprov-sync.ts";
import { subprovWebhookRoutes } from "./routes/subprov-webhook.ts";
import { auditLogRoutes } from "./routes/audit-logs.ts";
import { authRoutes } from "./routes/auth.ts";
import { deviceRoutes } from "./routes/devices.ts";
import { eventExportRoutes } from "./routes/events-export.ts";
import { eventLiveRoutes } from "./routes/events-live.ts";
import { mcpRoutes } from "./routes/mcp.ts";
import { eventRoutes } from "./routes/events.ts";
import { funnelAnalyticsRoutes, funnelCompletionRoutes } from "./routes/funnel-analytics.ts";
import { projectFunnelRoutes, teamFunnelRoutes } from "./routes/funnel-definitions.ts";
import { healthRoutes } from "./routes/health.ts";
import { identityRoutes } from "./routes/identity.ts";
import { importRoutes } from "./routes/import.ts";
import { ingestRoutes } from "./routes/ingest.ts";
import { inviteRoutes, teamInvitationRoutes } from "./routes/invitations.ts";
import { keyRoutes } from "./routes/keys.ts";
import { projectLocaleRoutes, userLocaleRoutes } from "./routes/locales.ts";
import { metricAnalyticsRoutes } from "./routes/metric-analytics.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { notificationRoutes } from "./routes/notifications.ts";
import { projectMetricRoutes, teamMetricRoutes } from "./routes/metric-definitions.ts";
import { projectMetricStatsRoutes, teamMetricAnalyticsRoutes } from "./routes/metric-stats.ts";
import { projectRoutes } from "./routes/projects.ts";
import { teamRoutes } from "./routes/teams.ts";

const ONE_MIB = 1024 * 1024;

/** The HTTP API as a Fastify instance; `main.ts` listens, tests call `inject` or listen on port 0. */
export async function buildApp(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // Request URLs and errors are redacted: invitation and download tokens travel in URLs.
    loggerInstance: deps.logger.child({ component: "api" }, { serializers: redactingSerializers }) as FastifyBaseLogger,
    bodyLimit: ONE_MIB,
    genReqId: (request) => {
      const given = request.headers["x-request-id"];
      return typeof given === "string" && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
    },
    trustProxy: true,
    return503OnClosing: true,
    forceCloseConnections: "idle",
  }).withTypeProvider<ZodTypeProvider>();
  app.addHook("onSend", async (request, reply) => {
    void reply.header("x-request-id", request.id);
  });
  await app.register(cookie);
  registerRequestMetrics(app, deps.metrics);
  registerErrorHandling(app);
  readRequestInput(app);
  registerRouteSchemas(app, { strictResponses: deps.config.nodeEnv !== "production" });
  registerAuth(app, deps);
  await registerOpenApi(app, { version: "v1", publicBaseUrl: deps.config.publicBaseUrl });
  await app.register(healthRoutes(deps));
  await app.register(metricsRoutes(deps));
  await registerDashboard(app);
  await app.register(authRoutes(deps), { prefix: "/v1/auth" });
  await app.register(keyRoutes(deps), { prefix: "/v1/auth/keys" });
  await app.register(projectRoutes(deps), { prefix: "/v1/projects" });
  await app.register(appRoutes(deps), { prefix: "/v1/apps" });
  await app.register(projectMetricRoutes(deps), { prefix: "/v1/projects/:projectId/metrics" });
  await app.register(teamMetricRoutes(deps), { prefix: "/v1/metrics" });
  await app.register(projectFunnelRoutes(deps), { prefix: "/v1/projects/:projectId/funnels" });
  await app.register(teamFunnelRoutes(deps), { prefix: "/v1/funnels" });
  await app.register(metricAnalyticsRoutes(deps), { prefix: "/v1/projects/:projectId/metrics" });
  await app.register(projectMetricStatsRoutes(deps), { prefix: "/v1/projects/:projectId/metric-stats" });
  await app.register(teamMetricAnalyticsRoutes(deps), { prefix: "/v1" });
  await app.register(funnelAnalyticsRoutes(deps), { prefix: "/v1/projects/:projectId/funnels" });
  await app.register(funnelCompletionRoutes(deps), { prefix: "/v1/funnels" });
  await app.register(teamRoutes(deps), { prefix: "/v1/teams" });
  await app.register(auditLogRoutes(deps), { prefix: "/v1/teams" });
  await app.register(teamJobRoutes(deps), { prefix: "/v1/teams" });
  await app.register(jobRunRoutes(deps), { prefix: "/v1/jobs" });
  await app.register(teamInvitationRoutes(deps), { prefix: "/v1/teams/:teamId/invitations" });
  await app.register(inviteRoutes(deps), { prefix: "/v1/invites" });
  await app.register(appUserRoutes(deps), { prefix: "/v1/apps" });
  await app.register(allAppUserRoutes(deps), { prefix: "/v1/app-users" });
  await app.register(projectLocaleRoutes(deps), { prefix: "/v1/projects/:projectId/users/locales" });
  await app.register(userLocaleRoutes(deps), { prefix: "/v1/users/locales" });
  await app.register(identityRoutes(deps), { prefix: "/v1/identity" });
  await app.register(ingestRoutes(deps), { prefix: "/v1" });
  await app.register(importRoutes(deps), { prefix: "/v1" });
  await app.register(eventRoutes(deps), { prefix: "/v1/events" });
  await app.register(eventExportRoutes(deps), { prefix: "/v1/events" });
  await app.register(eventLiveRoutes(deps), { prefix: "/v1/events" });
  await app.register(mcpRoutes(app));
  await app.register(attachmentIngestRoutes(deps), { prefix: "/v1/ingest" });
  await app.register(attachmentDownloadRoutes(deps), { prefix: "/v1/attachments" });
  await app.register(attachmentRoutes(deps), { prefix: "/v1/attachments" });
  await app.register(attachmentUsageRoutes(deps), { prefix: "/v1/projects" });
  await app.register(notificationRoutes(deps), { prefix: "/v1/notifications" });
  await app.register(deviceRoutes(deps), { prefix: "/v1/devices" });
  await app.register(feedbackSubmitRoutes(deps), { prefix: "/v1" });
  await app.register(feedbackRoutes(deps), { prefix: "/v1/projects/:projectId/feedback" });
  await app.register(feedbackCommentRoutes(deps), { prefix: "/v1/projects/:projectId/feedback/:id/comments" });
  await app.register(issueRoutes(deps), { prefix: "/v1/projects/:projectId/issues" });
  await app.register(issueCommentRoutes(deps), { prefix: "/v1/projects/:projectId/issues/:issueId/comments" });
  await app.register(issueOverviewRoutes(deps), { prefix: "/v1/issues" });
  await app.register(integrationRoutes(deps), { prefix: "/v1/projects/:projectId/integrations" });
  await app.register(subprovSyncRoutes(deps), { prefix: "/v1/projects/:projectId/integrations" });
  await app.register(subprovWebhookRoutes(deps), { prefix: "/v1/webhooks/subprov" });
  await app.register(projectAdsRoutes(deps), { prefix: "/v1/projects/:projectId/ads" });
  await app.register(teamAdsRoutes(deps), { prefix: "/v1/ads" });
  return app;
}
