import type { Properties } from "../../domain/identity/properties.ts";
import { entitlementProperties, lifetimeRevenueCents, subscriptionProperties } from "../../domain/integrations/subprov-properties.ts";
import type { IntegrationRow } from "../../projections/integrations/queries.ts";
import type { CommandDeps } from "../commands/deps.ts";
import { writeSubprovChange } from "../commands/subprov-identity.ts";
import { ProviderError } from "./provider-http.ts";
import { SubprovClient, type SubprovSettings } from "./subprov-client.ts";

/** The outcome of syncing one user: unknown at the provider, or synced (entitlements only when the subscriptions could not be read). */
export type UserSync = { kind: "unknown" } | { kind: "synced"; updated: boolean; properties: Properties; entitlementsOnly: boolean };

/** A client with an integration's credentials (config keys: docs/decisions.md, Integrations). */
export const subprovClientFor = (settings: SubprovSettings, integration: Pick<IntegrationRow, "config">): SubprovClient =>
  new SubprovClient(settings, { apiKey: integration.config.api_key ?? "", providerProjectId: integration.config.project_id ?? "" });

/**
 * Syncs one user from the provider's REST API: whether it knows the customer (v2, read-only),
 * the subscriber's entitlements (`GET /v1/subscribers/{id}`), then its subscriptions (v2, for status, renewal, period and
 * lifetime revenue). When the subscriptions cannot be read, the user still gets the properties
 * the entitlements give, and the revenue stays as it was. Writes through the identity facts.
 * @throws ProviderError when the subscriber itself cannot be read (the provider is unreachable or erring)
 */
export async function syncUser(
  deps: CommandDeps,
  settings: SubprovSettings,
  integration: Pick<IntegrationRow, "team_id" | "project_id" | "config">,
  userId: string,
  options: { signal?: AbortSignal; firstSeenAt?: string } = {},
): Promise<UserSync> {
  const client = subprovClientFor(settings, integration);
  if (!(await client.customerExists(userId, options.signal))) return { kind: "unknown" };
  const subscriber = await client.subscriber(userId, options.signal);
  if (!subscriber) return { kind: "unknown" };
  const now = new Date();
  let properties = entitlementProperties(subscriber.entitlements, now);
  let revenue: { mode: "set"; cents: number; syncedAt: string } | null = null;
  let entitlementsOnly = false;
  try {
    const subscriptions = await client.subscriptions(subscriber.originalAppUserId, options.signal);
    properties = { ...properties, ...subscriptionProperties(subscriptions) };
    // Stamped once the total is read: a webhook for a purchase the total already holds has an
    // earlier event time and adds nothing (domain/identity/decider.ts).
    revenue = { mode: "set", cents: lifetimeRevenueCents(subscriptions), syncedAt: new Date().toISOString() };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    entitlementsOnly = true;
  }
  const target = { teamId: integration.team_id, projectId: integration.project_id, userId, firstSeenAt: options.firstSeenAt };
  const written = await writeSubprovChange(deps, target, { properties, revenue });
  return { kind: "synced", updated: written?.updated ?? false, properties: written?.properties ?? properties, entitlementsOnly };
}
