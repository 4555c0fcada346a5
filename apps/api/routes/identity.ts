import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ATTRIBUTION_SOURCES, attributionPatch, DEV_MOCKS, mockResult, PENDING_RETRY_SECONDS } from "../../../domain/identity/attribution.ts";
import { ANONYMOUS_PREFIX } from "../../../domain/identity/events.ts";
import { readPropertyPatch } from "../../../domain/identity/properties.ts";
import { MAX_FIELD_CHARS } from "../../../domain/ingest/rules.ts";
import { invalid } from "../../../domain/shared/errors.ts";
import type { ApiDeps } from "../deps.ts";
import { resolveAttributionToken } from "../identity/adnet-client.ts";
import { identityCallerOf } from "../identity/caller.ts";
import { changeProperties } from "../identity/change-properties.ts";
import { claim } from "../identity/claim.ts";
import { chars, parse } from "../validation.ts";

// User ids are stored as events carry them, so they follow the ingest field limit. Text Postgres
// cannot store never gets this far (plugins/request-input.ts).
const userId = chars(MAX_FIELD_CHARS);

const claimBody = z.object({
  anonymous_id: userId.refine((id) => id.startsWith(ANONYMOUS_PREFIX), `must start with ${ANONYMOUS_PREFIX}`),
  user_id: userId.refine((id) => !id.startsWith(ANONYMOUS_PREFIX), `must not start with ${ANONYMOUS_PREFIX}`),
});
const propertiesBody = z.object({ user_id: userId, properties: z.unknown() });
const attributionBody = z.object({
  user_id: userId,
  attribution_token: z.string().trim().min(1).max(10_000),
  dev_mock: z.unknown().optional(),
});
const sourceParams = z.object({ source: z.string() });

/** /v1/identity: claims, user properties and install attribution, for SDKs with a client key. */
export function identityRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.post("/claim", async (request) => {
      const caller = await identityCallerOf(deps, request, "events:write");
      const body = parse(claimBody, request.body);
      const count = await claim(deps, caller, body.anonymous_id, body.user_id);
      return { claimed: true, events_reassigned_count: count };
    });

    app.post("/properties", async (request) => {
      const caller = await identityCallerOf(deps, request, "users:write");
      const body = parse(propertiesBody, request.body);
      if (body.properties === undefined) throw invalid("properties: required");
      const patch = readPropertyPatch(body.properties);
      return { updated: true, properties: await changeProperties(deps, caller, body.user_id, patch, "api") };
    });

    app.post("/attribution/:source", async (request) => {
      const caller = await identityCallerOf(deps, request, "users:write");
      const { source } = parse(sourceParams, request.params, "params");
      if (!(ATTRIBUTION_SOURCES as readonly string[]).includes(source)) {
        throw invalid(`source: unsupported attribution source; supported: ${ATTRIBUTION_SOURCES.join(", ")}`);
      }
      const body = parse(attributionBody, request.body);
      // Dev mocks let SDK developers exercise every answer without a real token; production
      // ignores the field entirely, so a shipped debug flag cannot fake attributions.
      const askedMock = deps.config.nodeEnv === "production" || body.dev_mock === undefined || body.dev_mock === null ? undefined : body.dev_mock;
      const mock = askedMock === undefined ? undefined : parse(z.enum(DEV_MOCKS), askedMock, "dev_mock");
      const result = mock
        ? mockResult(mock)
        : await resolveAttributionToken(deps.config.adnetBaseUrl, deps.config.adnetTimeoutMs, body.attribution_token);
      if (result.kind === "pending") return { attributed: null, pending: true, retry_after_seconds: PENDING_RETRY_SECONDS, properties: {} };
      await changeProperties(deps, caller, body.user_id, attributionPatch(result.properties), "attribution");
      return { attributed: result.kind === "attributed", pending: false, properties: result.properties };
    });
  };
}
