import { z } from "zod";
import { PROVIDER_IDS } from "../../../domain/integrations/providers.ts";
import { uuid } from "../validation.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

/** Config values are strings; which keys a provider takes is checked against its registry entry (400 naming the key). */
const config = z.record(z.string().max(1_000, "must be at most 1000 characters")).describe("Keys from the provider's configFields; all values strings");

export const configFieldBody = z.object({
  key: z.string(),
  label: z.string(),
  required: z.boolean(),
  sensitive: z.boolean().describe("Shown as its first 4 characters and ****"),
  placeholder: z.string(),
  description: z.string(),
});

export const providersBody = z.object({
  providers: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), configFields: z.array(configFieldBody) })),
});

export const integrationBody = z.object({
  id: z.string().uuid(),
  project_id: z.string().uuid(),
  provider: z.enum(PROVIDER_IDS),
  config: z.record(z.string()).describe("Sensitive values as their first 4 characters and ****"),
  enabled: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const webhookSetupBody = z.object({
  webhook_url: z.string().describe("{PUBLIC_BASE_URL}/v1/webhooks/subprov/<project_id>"),
  authorization_header: z.string().describe("Bearer <webhook secret>: the provider sends it with every delivery"),
  environment: z.string().describe("The integration's environment (production unless configured)"),
  events_filter: z.string().describe("The event types handled, comma-separated"),
});

export const integrationsBody = z.object({ integrations: z.array(integrationBody) });
export const createdIntegrationBody = integrationBody.extend({ webhook_setup: webhookSetupBody });
export const webhookSetupEnvelope = z.object({ webhook_setup: webhookSetupBody });

export const createBody = z.object({
  provider: z.string().max(50).describe(`One of ${PROVIDER_IDS.join(", ")}`),
  config,
});

export const patchBody = z.object({
  config: config.optional().describe("Merged over the stored config; a sensitive value sent back masked keeps the stored one"),
  enabled: z.boolean().optional(),
});

export const providerParams = z.object({ projectId: uuid, provider: z.string().max(50) });
export const syncUserParams = z.object({ projectId: uuid, userId: z.string().min(1).max(200) });

export const syncStartedBody = z.union([
  z.object({ syncing: z.literal(true), total: z.number().int(), job_run_id: z.string().uuid() }),
  z.object({ synced: z.literal(0), total: z.literal(0) }),
]);
export const userSyncedBody = z.object({ updated: z.boolean(), properties: z.record(z.string()) });
export const receivedBody = z.object({ received: z.literal(true) });

export const exampleIntegration = {
  id: "4a5b6c7d-8e9f-4a0b-8c1d-2e3f4a5b6c7d",
  project_id: EXAMPLE.projectId,
  provider: "subprov",
  config: { api_key: "sk_l****", project_id: "proj1ab2c3d4", environment: "production" },
  enabled: true,
  created_at: EXAMPLE.at,
  updated_at: EXAMPLE.at,
} satisfies z.input<typeof integrationBody>;

export const exampleWebhookSetup = {
  webhook_url: `https://analytics.example.com/v1/webhooks/subprov/${EXAMPLE.projectId}`,
  authorization_header: "Bearer 3q2-7wW1b0kq9pZ8cR4dT6yU1iO5pA7s",
  environment: "production",
  events_filter: "INITIAL_PURCHASE,RENEWAL,PRODUCT_CHANGE,UNCANCELLATION,CANCELLATION,BILLING_ISSUE,EXPIRATION,TRANSFER",
} satisfies z.input<typeof webhookSetupBody>;

/** The provider's delivery, documented; the route parses it only after the secret checks out (a stranger learns nothing from a 400). */
export const webhookDeliveryDoc = z.object({
  api_version: z.string().optional(),
  event: z
    .object({
      id: z.string(),
      type: z.string().describe("INITIAL_PURCHASE, RENEWAL, PRODUCT_CHANGE, UNCANCELLATION, CANCELLATION, BILLING_ISSUE, EXPIRATION or TRANSFER; others are acknowledged and ignored"),
      event_timestamp_ms: z.number().int(),
      app_user_id: z.string().nullish(),
      original_app_user_id: z.string().nullish(),
      transferred_from: z.array(z.string()).nullish(),
      transferred_to: z.array(z.string()).nullish(),
    })
    .passthrough(),
});
export const webhookParams = z.object({ projectId: uuid });
