import type { FastifyInstance, FastifyRequest } from "fastify";
import { countryCode, normalizeBatch, readIngestRequest } from "../../../domain/ingest/batch.ts";
import { encodeFacts } from "../../../domain/ingest/fact.ts";
import { MAX_INGEST_EVENTS } from "../../../domain/ingest/rules.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { reattributeClaimed } from "../../../projections/app-users/claim-lookup.ts";
import { append } from "../../../streams/append.ts";
import type { ApiDeps } from "../deps.ts";
import { acceptIngestBodies } from "../ingest/body.ts";
import { ingestCallerOf, type IngestCaller } from "../ingest/caller.ts";
import { enforceRateLimit } from "../rate-limit.ts";

/** Room for the NATS message's headers and subject under the server's payload limit. */
const MESSAGE_HEADROOM_BYTES = 4_096;
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

const callers = new WeakMap<FastifyRequest, IngestCaller>();

/**
 * POST /v1/ingest (register with prefix /v1). The key is checked and a rate-limit token spent
 * before the body is read, so a rejected caller costs no decompression or parsing. The accepted
 * events are appended as one EventsIngested fact and the answer waits for the JetStream
 * acknowledgement only: projection into the events read model happens afterwards.
 */
export function ingestRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    acceptIngestBodies(app);

    app.post("/ingest", {
      onRequest: async (request) => {
        const caller = await ingestCallerOf(deps, request);
        enforceRateLimit(deps, `key:${caller.keyId}`);
        callers.set(request, caller);
      },
      handler: async (request) => {
        const caller = callers.get(request)!;
        const raw = readIngestRequest(request.body, caller.app, MAX_INGEST_EVENTS);
        const now = Date.now();
        const batch = normalizeBatch(raw, { mode: "ingest", platform: caller.app.platform, nowMs: now });
        if (batch.events.length > 0) {
          // SPEC Ingest rule 6: an anonymous id already claimed is sent on as the claiming user.
          await reattributeClaimed(deps.pool, caller.app.project_id, batch.events);
          const facts = encodeFacts(
            {
              batchId: newId(),
              mode: "ingest",
              app: caller.app,
              apiKeyId: caller.keyId,
              receivedAt: new Date(now).toISOString(),
              countryCode: countryCode(request.headers[deps.config.countryHeader], caller.app.platform),
            },
            batch.events,
            (deps.log.nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD) - MESSAGE_HEADROOM_BYTES,
          );
          const subject = deps.log.names.ingestSubject(caller.app.project_id, caller.app.id);
          for (const fact of facts) await append(deps.log, subject, fact.payload, { msgId: fact.id });
        }
        return batch.rejected > 0
          ? { accepted: batch.accepted, rejected: batch.rejected, errors: batch.errors }
          : { accepted: batch.accepted, rejected: 0 };
      },
    });
  };
}
