import { z } from "zod";
import { PROVIDER_IDS } from "./providers.ts";

/**
 * Integration facts, all on the DOMAIN subject of their project (`<ns>.d.integrations.<project_id>`):
 * "one active integration per (project, provider)" is then one aggregate's rule, decided on one
 * version (projections/integrations/README.md). Ids, secrets and times come in with the command.
 *
 * `webhook_secret` is a fact field so that a replay rebuilds it; no log, audit entry or response
 * other than `webhook_setup` may show it, nor the sensitive config values (the api key).
 */

const on = {
  v: z.literal(1),
  integration_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  provider: z.enum(PROVIDER_IDS),
};

/** Created, or a soft-deleted one restored (`restored`, same id) with a new config and a new secret. */
export const integrationCreated = z.object({
  type: z.literal("IntegrationCreated"),
  ...on,
  config: z.record(z.string()),
  webhook_secret: z.string(),
  restored: z.boolean(),
  created_at: z.string(),
});

/** The whole config after a PATCH merge, and `enabled`; `changed_keys` names what changed (for the audit log, without values). */
export const integrationUpdated = z.object({
  type: z.literal("IntegrationUpdated"),
  ...on,
  config: z.record(z.string()),
  enabled: z.boolean(),
  previous_enabled: z.boolean(),
  changed_keys: z.array(z.string()),
  updated_at: z.string(),
});

/** Soft deletion: no longer active, the row (and its id) kept for a restore. */
export const integrationDeleted = z.object({
  type: z.literal("IntegrationDeleted"),
  ...on,
  deleted_at: z.string(),
});

/**
 * The provider reported a TRANSFER: the worker re-syncs `user_ids` (provider anonymous ids already
 * dropped) from the provider's REST API (apps/worker/subprov-transfers.ts). A fact rather than an
 * in-process promise, so a crash between the answer and the re-sync loses nothing.
 */
export const integrationTransferReceived = z.object({
  type: z.literal("IntegrationTransferReceived"),
  ...on,
  event_id: z.string(),
  user_ids: z.array(z.string()),
  received_at: z.string(),
});

export const integrationEvents = [integrationCreated, integrationUpdated, integrationDeleted, integrationTransferReceived] as const;
export type IntegrationCreated = z.infer<typeof integrationCreated>;
export type IntegrationFact =
  | IntegrationCreated
  | z.infer<typeof integrationUpdated>
  | z.infer<typeof integrationDeleted>
  | z.infer<typeof integrationTransferReceived>;
