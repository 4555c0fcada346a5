import type { FastifyInstance } from "fastify";
import { normalizeBatch, readImportRequest } from "../../../domain/ingest/batch.ts";
import { MAX_IMPORT_BODY_BYTES, MAX_IMPORT_EVENTS } from "../../../domain/ingest/rules.ts";
import type { ApiDeps } from "../deps.ts";
import { oneAtATime } from "../one-at-a-time.ts";
import { appendBatch } from "../ingest/append.ts";
import { acceptIngestBodies } from "../ingest/body.ts";
import { ingestCallerOf } from "../ingest/caller.ts";
import { classifyImport } from "../ingest/import-outcome.ts";

/**
 * POST /v1/import (register with prefix /v1): historical events with an import key, not rate
 * limited. The key is checked before the body is read. Valid events are appended as
 * EventsIngested facts with `mode: "import"`, which every ingest read model applies as
 * update-in-place by `client_event_id`; the answer waits for the JetStream acknowledgement.
 */
export function importRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    acceptIngestBodies(app, MAX_IMPORT_BODY_BYTES);

    app.post("/import", {
      onRequest: async (request) => {
        await ingestCallerOf(deps, request, "import");
      },
      handler: async (request) => {
        const caller = await ingestCallerOf(deps, request, "import");
        const raw = readImportRequest(request.body, MAX_IMPORT_EVENTS);
        const now = Date.now();
        const batch = normalizeBatch(raw, { mode: "import", platform: caller.app.platform, nowMs: now });
        const subject = deps.log.names.ingestSubject(caller.app.project_id, caller.app.id);
        // One import of an app at a time in this API instance, from classification to append, so
        // concurrent imports through one instance classify each other's events correctly.
        const outcome =
          batch.events.length === 0
            ? { accepted: 0, updated: 0 }
            : await oneAtATime(deps, `import:${subject}`, async () => {
                const counts = await classifyImport(deps, subject, caller.app.id, batch.events);
                // The importer's location says nothing about the users whose events it sends.
                await appendBatch(deps, caller, batch.events, { mode: "import", receivedAt: new Date(now).toISOString(), countryCode: null });
                return counts;
              });
        const answer = { accepted: outcome.accepted, updated: outcome.updated, rejected: batch.rejected };
        return batch.rejected > 0 ? { ...answer, errors: batch.errors } : answer;
      },
    });
  };
}
