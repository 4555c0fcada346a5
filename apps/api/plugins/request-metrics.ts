import type { FastifyInstance } from "fastify";
import type { Metrics } from "../../observability/metrics.ts";

/**
 * Times every answer into `http_request_duration_seconds`, labelled by the route's pattern
 * (`/v1/projects/:projectId/issues`, never the path itself, so the series stay few) or
 * `unmatched` for a path no route has. Streams the handler writes itself (`GET /v1/events/live`,
 * open for minutes or hours) are not answers to time, and are left out.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook("onResponse", async (request, reply) => {
    if (reply.raw.getHeader("content-type")?.toString().startsWith("text/event-stream")) return;
    metrics.httpDuration.observe({ method: request.method, route: request.routeOptions.url ?? "unmatched", status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
}
