import type { FastifyInstance } from "fastify";
import { countryCode, normalizeBatch, readIngestRequest } from "../../../domain/ingest/batch.ts";
import { MAX_INGEST_EVENTS } from "../../../domain/ingest/rules.ts";
import type { ApiDeps } from "../deps.ts";
import { appendBatch } from "../ingest/append.ts";
import { acceptIngestBodies } from "../ingest/body.ts";
import { ingestCallerOf } from "../ingest/caller.ts";
import { authenticateRateLimited } from "../rate-limit.ts";

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
      // SDKs post several batches a second each: two access-log lines per batch would cost more
      // than the batch's own work and drown every other line. Failures are still logged.
      logLevel: "warn",
      onRequest: async (request) => {
        await authenticateRateLimited(deps, request, () => ingestCallerOf(deps, request), (caller) => `key:${caller.keyId}`);
      },
      handler: async (request) => {
        const caller = await ingestCallerOf(deps, request);
        const raw = readIngestRequest(request.body, caller.app, MAX_INGEST_EVENTS);
        const now = Date.now();
        const batch = normalizeBatch(raw, { mode: "ingest", platform: caller.app.platform, nowMs: now });
        await appendBatch(deps, caller, batch.events, {
          mode: "ingest",
          receivedAt: new Date(now).toISOString(),
          countryCode: countryCode(request.headers[deps.config.countryHeader], caller.app.platform),
        });
        return batch.rejected > 0
          ? { accepted: batch.accepted, rejected: batch.rejected, errors: batch.errors }
          : { accepted: batch.accepted, rejected: 0 };
      },
    });
  };
}
