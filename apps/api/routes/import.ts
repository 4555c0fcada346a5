import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { normalizeBatch, readImportRequest } from "../../../domain/ingest/batch.ts";
import { MAX_IMPORT_BODY_BYTES, MAX_IMPORT_EVENTS } from "../../../domain/ingest/rules.ts";
import { appKey } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { appendBatch } from "../ingest/append.ts";
import { acceptIngestBodies } from "../ingest/body.ts";
import { classifyImport } from "../ingest/import-outcome.ts";
import { documentedOnly } from "../plugins/route-schemas.ts";
import { errorBody, TAGS } from "../schemas/common.ts";
import { exampleSentEvent, importAnswer, importRequest } from "../schemas/ingest.ts";

/**
 * POST /v1/import (register with prefix /v1): historical events with an import key
 * (`appKey("import")`), checked before the body is read. Valid events are appended as
 * EventsIngested facts with `mode: "import"`, which every ingest read model applies as
 * update-in-place by `client_event_id`; the answer waits for the JetStream acknowledgement.
 */
export function importRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    acceptIngestBodies(app, MAX_IMPORT_BODY_BYTES);

    app.post(
      "/import",
      {
        schema: {
          summary: "Import historical events of an app",
          description:
            "Up to 1,000 events, JSON, optionally gzip-compressed (10 MiB compressed and decompressed). Any past timestamp, at most 5 minutes in the future. " +
            "An event whose `client_event_id` matches a stored event updates it in place; events without one are always inserted. " +
            "Invalid events are reported in `errors` as `events[<index>]: <reason>` and the rest are stored.",
          tags: [TAGS.ingest],
          body: documentedOnly(importRequest),
          response: { 200: importAnswer, 413: errorBody, 415: errorBody },
          examples: {
            body: { events: [exampleSentEvent] },
            200: { accepted: 0, updated: 1, rejected: 0 },
          },
        },
        config: { access: appKey("import") },
      },
      async (request) => {
        const caller = request.appKey;
        const raw = readImportRequest(request.body, MAX_IMPORT_EVENTS);
        const now = Date.now();
        const batch = normalizeBatch(raw, { mode: "import", platform: caller.app.platform, nowMs: now });
        const subject = deps.log.names.ingestSubject(caller.app.project_id, caller.app.id);
        // One import of an app at a time in this API instance, from classification to append, so
        // concurrent imports through one instance classify each other's events correctly.
        const outcome =
          batch.events.length === 0
            ? { accepted: 0, updated: 0 }
            : await deps.oneAtATime.run(`import:${subject}`, async () => {
                const counts = await classifyImport(deps, subject, caller.app.id, batch.events);
                // The importer's location says nothing about the users whose events it sends.
                await appendBatch(deps, caller, batch.events, { mode: "import", receivedAt: new Date(now).toISOString(), countryCode: null });
                return counts;
              });
        // Updated events (a client_event_id seen before) are appended too: accepted into the log.
        deps.metrics.ingestEvents.inc({ route: "import", outcome: "accepted" }, outcome.accepted + outcome.updated);
        if (batch.rejected > 0) deps.metrics.ingestEvents.inc({ route: "import", outcome: "rejected" }, batch.rejected);
        const answer = { accepted: outcome.accepted, updated: outcome.updated, rejected: batch.rejected };
        return batch.rejected > 0 ? { ...answer, errors: batch.errors } : answer;
      },
    );
  };
}
