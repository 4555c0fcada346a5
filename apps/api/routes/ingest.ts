import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { countryCode, normalizeBatch, readIngestRequest } from "../../../domain/ingest/batch.ts";
import { MAX_INGEST_EVENTS } from "../../../domain/ingest/rules.ts";
import { appKey } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { appendBatch } from "../ingest/append.ts";
import { acceptIngestBodies } from "../ingest/body.ts";
import { documentedOnly } from "../plugins/route-schemas.ts";
import { errorBody, TAGS } from "../schemas/common.ts";
import { exampleSentEvent, ingestAnswer, ingestRequest } from "../schemas/ingest.ts";

/**
 * POST /v1/ingest (register with prefix /v1). The key is checked and a rate-limit token spent
 * before the body is read (`appKey("client")`), so a rejected caller costs no decompression or
 * parsing. The accepted events are appended as one EventsIngested fact and the answer waits for
 * the JetStream acknowledgement only: projection into the events read model happens afterwards.
 */
export function ingestRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    acceptIngestBodies(app);

    app.post(
      "/ingest",
      {
        // SDKs post several batches a second each: two access-log lines per batch would cost more
        // than the batch's own work and drown every other line. Failures are still logged.
        logLevel: "warn",
        schema: {
          summary: "Send a batch of events from an app",
          description:
            "Up to 100 events, JSON, optionally gzip-compressed (`Content-Encoding: gzip`; 1 MiB compressed and decompressed). " +
            "Each event is checked on its own: invalid ones are reported in `errors` as `events[<index>]: <reason>` and the rest are stored. " +
            "A `client_event_id` already received within 48 hours is skipped silently.",
          tags: [TAGS.ingest],
          body: documentedOnly(ingestRequest),
          response: { 200: ingestAnswer, 413: errorBody, 415: errorBody },
          examples: {
            body: { bundle_id: "com.example.app", events: [exampleSentEvent] },
            200: { accepted: 1, rejected: 1, errors: [{ index: 1, message: "events[1]: level must be one of info, debug, warn, error" }] },
          },
        },
        config: { access: appKey("client") },
      },
      async (request) => {
        const caller = request.appKey;
        const raw = readIngestRequest(request.body, caller.app, MAX_INGEST_EVENTS);
        const now = Date.now();
        const batch = normalizeBatch(raw, { mode: "ingest", platform: caller.app.platform, nowMs: now });
        await appendBatch(deps, caller, batch.events, {
          mode: "ingest",
          receivedAt: new Date(now).toISOString(),
          countryCode: countryCode(request.headers[deps.config.countryHeader], caller.app.platform),
        });
        deps.metrics.ingestEvents.inc({ route: "ingest", outcome: "accepted" }, batch.accepted);
        if (batch.rejected > 0) deps.metrics.ingestEvents.inc({ route: "ingest", outcome: "rejected" }, batch.rejected);
        return batch.rejected > 0
          ? { accepted: batch.accepted, rejected: batch.rejected, errors: batch.errors }
          : { accepted: batch.accepted, rejected: 0 };
      },
    );
  };
}
