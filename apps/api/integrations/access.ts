import { PROVIDERS, maskedConfig, SUBPROV, SUBPROV_WEBHOOK_EVENTS } from "../../../domain/integrations/providers.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { activeIntegration, webhookSecretOf, type IntegrationRow } from "../../../projections/integrations/queries.ts";
import type { Rule } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";

/** Any member reads the registry and the list; agent keys need integrations:read. */
export const READ: Rule = { permission: "integrations:read", role: "member" };
/** The webhook setup shows the secret: admins, or agent keys with integrations:read. */
export const READ_SECRET: Rule = { permission: "integrations:read", role: "admin" };
/** Changes and syncs: admins, or agent keys with integrations:write. */
export const WRITE: Rule = { permission: "integrations:write", role: "admin" };

/** An integration as responses show it: sensitive config values masked, the secret absent. */
export const toIntegration = (row: IntegrationRow) => ({
  id: row.id,
  project_id: row.project_id,
  provider: row.provider,
  config: maskedConfig(PROVIDERS[row.provider], row.config),
  enabled: row.enabled,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** What to configure at the provider: the only place the webhook secret is shown. */
export async function webhookSetup(deps: ApiDeps, row: IntegrationRow) {
  const secret = await webhookSecretOf(deps.pool, row.project_id, row.provider);
  if (secret === null) throw notFound("integration");
  return {
    webhook_url: `${deps.config.publicBaseUrl}/v1/webhooks/${SUBPROV}/${row.project_id}`,
    authorization_header: `Bearer ${secret}`,
    environment: row.config.environment ?? "production",
    events_filter: SUBPROV_WEBHOOK_EVENTS.join(","),
  };
}

/** The project's active integration of `provider`; 404 without one. */
export async function existingIntegration(deps: ApiDeps, projectId: string, provider: string): Promise<IntegrationRow> {
  const row = await activeIntegration(deps.pool, projectId, provider);
  if (!row) throw notFound("integration");
  return row;
}

/** The project's active and enabled integration of `provider`: what a sync needs; 404 when not configured or disabled. */
export async function enabledIntegration(deps: ApiDeps, projectId: string, provider: string): Promise<IntegrationRow> {
  const row = await activeIntegration(deps.pool, projectId, provider);
  if (!row || !row.enabled) throw notFound(`${provider} integration (not configured or disabled)`);
  return row;
}
