import type { FastifyInstance, FastifyRequest } from "fastify";
import { normalizeBatch, readImportRequest } from "../../../domain/ingest/batch.ts";
import { encodeFacts } from "../../../domain/ingest/fact.ts";
import { MAX_IMPORT_BODY_BYTES, MAX_IMPORT_EVENTS } from "../../../domain/ingest/rules.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { reattributeClaimed } from "../../../projections/app-users/claim-lookup.ts";
import { append } from "../../../streams/append.ts";
import type { ApiDeps } from "../deps.ts";
import { withSubjectLock } from "../identity/subject-lock.ts";
import { acceptIngestBodies } from "../ingest/body.ts";
import { ingestCallerOf, type IngestCaller } from "../ingest/caller.ts";
import { classifyImport } from "../ingest/import-outcome.ts";

/** Room for the NATS message's headers and subject under the server's payload limit. */
const MESSAGE_HEADROOM_BYTES = 4_096;
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

const callers = new WeakMap<FastifyRequest, IngestCaller>();

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
        callers.set(request, await ingestCallerOf(deps, request, "import"));
      },
      handler: async (request) => {
        const caller = callers.get(request)!;
        const raw = readImportRequest(request.body, MAX_IMPORT_EVENTS);
        const now = Date.now();
        const batch = normalizeBatch(raw, { mode: "import", platform: caller.app.platform, nowMs: now });
        const subject = deps.log.names.ingestSubject(caller.app.project_id, caller.app.id);
        // One import of an app at a time in this API instance, from classification to append, so
        // concurrent imports through one instance classify each other's events correctly.
        const outcome = await withSubjectLock(deps, `import:${subject}`, async () => {
          if (batch.events.length === 0) return { accepted: 0, updated: 0 };
          const counts = await classifyImport(deps, subject, caller.app.id, batch.events);
          // As on ingest: an anonymous id already claimed is sent on as the claiming user.
          await reattributeClaimed(deps.pool, caller.app.project_id, batch.events);
          const facts = encodeFacts(
            {
              batchId: newId(),
              mode: "import",
              app: caller.app,
              apiKeyId: caller.keyId,
              receivedAt: new Date(now).toISOString(),
              // The importer's location says nothing about the users whose events it sends.
              countryCode: null,
            },
            batch.events,
            (deps.log.nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD) - MESSAGE_HEADROOM_BYTES,
          );
          for (const fact of facts) await append(deps.log, subject, fact.payload, { msgId: fact.id });
          return counts;
        });
        const answer = { accepted: outcome.accepted, updated: outcome.updated, rejected: batch.rejected };
        return batch.rejected > 0 ? { ...answer, errors: batch.errors } : answer;
      },
    });
  };
}
