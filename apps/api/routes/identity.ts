import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { attributionPatch, mockResult, PENDING_RETRY_SECONDS } from "../../../domain/identity/attribution.ts";
import { readPropertyPatch } from "../../../domain/identity/properties.ts";
import { sdkKey } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { resolveAttributionToken } from "../identity/adnet-client.ts";
import { changeProperties } from "../identity/change-properties.ts";
import { claim } from "../identity/claim.ts";
import { errorBody, TAGS } from "../schemas/common.ts";
import {
  attributionAnswer,
  attributionParams,
  attributionRequest,
  claimAnswer,
  claimRequest,
  exampleAttributed,
  propertiesAnswer,
  propertiesRequest,
} from "../schemas/identity.ts";

const tags = [TAGS.identity];

/** /v1/identity: claims, user properties and install attribution, for SDKs with a client key of an app. */
export function identityRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  const attributionBody = attributionRequest(deps.config.nodeEnv === "production");

  return async (app) => {
    app.post(
      "/claim",
      {
        schema: {
          summary: "Claim an anonymous id for a known user",
          description:
            "Across every app of the key's project, the anonymous id's events and user record move to the known user. " +
            "Repeating a claim already made answers 200 with count 0; a claim of an id another user claimed is a 409.",
          tags,
          body: claimRequest,
          response: { 200: claimAnswer, 409: errorBody },
          examples: { body: { anonymous_id: "svc_anon_3f9a0c1d2e4b5a6c", user_id: "user-42" }, 200: { claimed: true, events_reassigned_count: 12 } },
        },
        config: { access: sdkKey("events:write") },
      },
      async (request) => {
        const count = await claim(deps, request.sdk, request.body.anonymous_id, request.body.user_id);
        return { claimed: true as const, events_reassigned_count: count };
      },
    );

    app.post(
      "/properties",
      {
        schema: {
          summary: "Merge properties into a user",
          description: "Race-safe: parallel merges of one user all apply. Answers every property of the user after the merge.",
          tags,
          body: propertiesRequest,
          response: { 200: propertiesAnswer },
          examples: {
            body: { user_id: "user-42", properties: { plan: "pro", trial_source: "" } },
            200: { updated: true, properties: { plan: "pro", locale_override: "sv" } },
          },
        },
        config: { access: sdkKey("users:write") },
      },
      async (request) => {
        const patch = readPropertyPatch(request.body.properties);
        return { updated: true as const, properties: await changeProperties(deps, request.sdk, request.body.user_id, patch, "api") };
      },
    );

    app.post(
      "/attribution/:source",
      {
        schema: {
          summary: "Resolve an install's ad-network attribution token",
          description:
            "The network is asked with the token; its answer is stored as the user's attribution properties (merged like properties, within the 50-property limit) and returned. " +
            `While the network has no record yet the answer is pending and nothing is stored: ask again after \`retry_after_seconds\` (${PENDING_RETRY_SECONDS}). ` +
            "400 for a token the network rejects, 502 when the network fails.",
          tags,
          params: attributionParams,
          body: attributionBody,
          response: { 200: attributionAnswer, 502: errorBody },
          examples: { body: { user_id: "user-42", attribution_token: "<token from the ad network framework>" }, 200: exampleAttributed },
        },
        config: { access: sdkKey("users:write") },
      },
      async (request) => {
        const { user_id: userId, attribution_token: token, dev_mock: mock } = request.body;
        const result = mock ? mockResult(mock) : await resolveAttributionToken(deps.config.adnetBaseUrl, deps.config.adnetTimeoutMs, token);
        if (result.kind === "pending") return { attributed: null, pending: true as const, retry_after_seconds: PENDING_RETRY_SECONDS, properties: {} };
        await changeProperties(deps, request.sdk, userId, attributionPatch(result.properties), "attribution");
        return { attributed: result.kind === "attributed", pending: false as const, properties: result.properties };
      },
    );
  };
}
