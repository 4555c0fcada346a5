import { invalid } from "../shared/errors.ts";

/**
 * The integration providers and the config each takes (docs/decisions.md, Integrations). Config
 * values are strings; `sensitive` ones are shown masked. The webhook secret is not config: the
 * server generates it and keeps it beside the config (events.ts).
 */
export type ConfigField = { key: string; label: string; required: boolean; sensitive: boolean; placeholder: string; description: string };
export type Provider = { id: string; name: string; description: string; configFields: ConfigField[] };

export const SUBPROV = "subprov";
export const PROVIDER_IDS = [SUBPROV] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** Values `environment` may take; the provider's webhook events carry them upper-cased. */
export const SUBPROV_ENVIRONMENTS = ["production", "sandbox"] as const;

/** The event types the webhook handles, in the order the SPEC lists them; `events_filter` of webhook_setup. */
export const SUBPROV_WEBHOOK_EVENTS = [
  "INITIAL_PURCHASE",
  "RENEWAL",
  "PRODUCT_CHANGE",
  "UNCANCELLATION",
  "CANCELLATION",
  "BILLING_ISSUE",
  "EXPIRATION",
  "TRANSFER",
] as const;

export const PROVIDERS: Record<ProviderId, Provider> = {
  subprov: {
    id: SUBPROV,
    name: "Subscription provider",
    description: "Syncs subscriber state and lifetime revenue into user properties (sp_*), by REST API sync and by inbound webhook.",
    configFields: [
      {
        key: "api_key",
        label: "Secret API key",
        required: true,
        sensitive: true,
        placeholder: "sk_...",
        description: "A secret API key of the provider project (REST API v1 and v2 read access); sent as a Bearer token.",
      },
      {
        key: "project_id",
        label: "Provider project id",
        required: true,
        sensitive: false,
        placeholder: "proj1ab2c3d4",
        description: "The project's id at the provider: its v2 endpoints (subscriptions, customer list) are scoped by it.",
      },
      {
        key: "environment",
        label: "Environment",
        required: false,
        sensitive: false,
        placeholder: "production",
        description: "production (default) or sandbox: webhook events of the other environment are acknowledged and ignored.",
      },
    ],
  },
};

export const isProviderId = (value: string): value is ProviderId => (PROVIDER_IDS as readonly string[]).includes(value);

/** @throws DomainError invalid for a provider id that is not supported */
export function providerOf(id: string): Provider {
  if (!isProviderId(id)) throw invalid(`provider: unsupported provider ${JSON.stringify(id)}; one of ${PROVIDER_IDS.join(", ")}`);
  return PROVIDERS[id];
}

export type IntegrationConfig = Record<string, string>;

/**
 * Checks a whole config against its provider: known keys only, required ones present and not
 * blank, `environment` one of its values. Values arrive as strings (the route's schema).
 * @throws DomainError invalid naming the first bad key
 */
export function checkConfig(provider: Provider, config: IntegrationConfig): void {
  const known = new Set(provider.configFields.map((field) => field.key));
  for (const key of Object.keys(config)) {
    if (!known.has(key)) throw invalid(`config.${key}: unknown config key for ${provider.id}; allowed: ${[...known].join(", ")}`);
  }
  for (const field of provider.configFields) {
    const value = config[field.key];
    if (field.required && (value === undefined || value.trim() === "")) throw invalid(`config.${field.key}: required`);
  }
  const environment = config.environment;
  if (provider.id === SUBPROV && environment !== undefined && !(SUBPROV_ENVIRONMENTS as readonly string[]).includes(environment)) {
    throw invalid(`config.environment: must be one of ${SUBPROV_ENVIRONMENTS.join(", ")}`);
  }
}

/** A sensitive value as responses show it: its first 4 characters and `****`. */
export const masked = (value: string): string => `${value.slice(0, 4)}****`;

/** The config as responses show it: sensitive values masked, the rest as stored. */
export function maskedConfig(provider: Provider, config: IntegrationConfig): IntegrationConfig {
  const sensitive = new Set(provider.configFields.filter((field) => field.sensitive).map((field) => field.key));
  return Object.fromEntries(Object.entries(config).map(([key, value]) => [key, sensitive.has(key) ? masked(value) : value]));
}

/**
 * PATCH: `patch` over `stored`. A sensitive value sent back exactly as responses mask it (a
 * client echoing what it read) keeps the stored value instead of storing the mask.
 */
export function mergeConfig(provider: Provider, stored: IntegrationConfig, patch: IntegrationConfig): IntegrationConfig {
  const sensitive = new Set(provider.configFields.filter((field) => field.sensitive).map((field) => field.key));
  const merged = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    const storedValue = stored[key];
    if (sensitive.has(key) && storedValue !== undefined && value === masked(storedValue)) continue;
    merged[key] = value;
  }
  return merged;
}
