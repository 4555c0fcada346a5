import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { SUBPROV } from "../../../domain/integrations/providers.ts";
import { eventUser, inEnvironment, isHandledEvent, subprovDelivery, transferredUsers, webhookProperties, webhookRevenueCents } from "../../../domain/integrations/subprov-webhook.ts";
import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { invalid, notFound, unauthorized } from "../../../domain/shared/errors.ts";
import { derivedId } from "../../../domain/shared/ids.ts";
import { activeProject } from "../../../projections/directory/catalog-queries.ts";
import { activeIntegration, webhookSecretOf } from "../../../projections/integrations/queries.ts";
import { runIntegrationCommand } from "../../commands/integration-command.ts";
import { writeSubprovChange } from "../../commands/subprov-identity.ts";
import { PUBLIC } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { documentedOnly } from "../plugins/route-schemas.ts";
import { errorBody, TAGS } from "../schemas/common.ts";
import { receivedBody, webhookDeliveryDoc, webhookParams } from "../schemas/integrations.ts";
import { parse } from "../validation.ts";

/** Compares digests, so neither the length nor the content of the expected header leaks through timing. */
function sameSecret(sent: string | undefined, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(sent ?? ""), digest(expected));
}

/** `POST /v1/webhooks/subprov/:projectId` (register with prefix /v1/webhooks/subprov). */
export function subprovWebhookRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/:projectId",
      {
        schema: {
          summary: "Receive a subscription provider webhook delivery",
          description:
            "Called by the provider with `Authorization: Bearer <webhook secret>` (see webhook_setup). Purchase, renewal, product change, uncancellation, " +
            "cancellation, billing issue and expiration events set the sp_* properties and the revenue of `event.app_user_id` (else `original_app_user_id`); " +
            "TRANSFER is acknowledged at once and its non-anonymous users are re-synced in the background. Other event types and events of the other " +
            "environment are acknowledged and ignored. A delivery repeated changes nothing. 404 not configured or disabled, 401 bad secret, 400 malformed.",
          tags: [TAGS.integrations],
          params: webhookParams,
          body: documentedOnly(webhookDeliveryDoc),
          response: { 200: receivedBody, 400: errorBody, 401: errorBody, 404: errorBody },
          examples: { 200: { received: true } },
        },
        config: { access: PUBLIC },
      },
      async (request) => {
        const { projectId } = request.params;
        const integration = (await activeProject(deps.pool, projectId)) ? await activeIntegration(deps.pool, projectId, SUBPROV) : null;
        if (!integration || !integration.enabled) throw notFound(`${SUBPROV} integration (not configured or disabled)`);
        const secret = await webhookSecretOf(deps.pool, projectId, SUBPROV);
        if (secret === null || !sameSecret(request.headers.authorization, `Bearer ${secret}`)) throw unauthorized("invalid webhook authorization");
        const { event } = parse(subprovDelivery, request.body, "body");
        if (!isHandledEvent(event.type) || !inEnvironment(event, integration.config.environment)) return { received: true as const };
        // Ids derived from the event's id: the same delivery twice is one message on the stream.
        const seed = `${SUBPROV}:webhook:${projectId}:${event.id}`;
        if (event.type === "TRANSFER") {
          const userIds = transferredUsers(event);
          if (userIds.length > 0) {
            await runIntegrationCommand(
              deps,
              { type: "RecordTransfer", projectId, provider: SUBPROV, eventId: event.id, userIds, at: new Date().toISOString() },
              SYSTEM_ACTOR,
              derivedId(seed),
            );
          }
          return { received: true as const };
        }
        const userId = eventUser(event);
        if (userId === null) throw invalid("event.app_user_id: required (or event.original_app_user_id)");
        const cents = webhookRevenueCents(event);
        await writeSubprovChange(
          deps,
          { teamId: integration.team_id, projectId, userId },
          {
            properties: webhookProperties(event.type, event),
            revenue: cents === null ? null : { mode: "add", cents, syncedAt: new Date(event.event_timestamp_ms).toISOString() },
          },
          seed,
        );
        return { received: true as const };
      },
    );
  };
}
