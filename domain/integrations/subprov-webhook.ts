import { z } from "zod";
import { isAnonymousId } from "../identity/events.ts";
import { MAX_PROPERTY_VALUE_CHARS, type Properties } from "../identity/properties.ts";
import { SUBPROV_WEBHOOK_EVENTS } from "./providers.ts";

/**
 * The provider's webhook delivery (`{api_version, event}`), reduced to the fields used
 * (docs/integrations.md). Unknown fields pass; times are ms since the epoch; `price` is the
 * transaction's USD price (0 for a trial, negative for a refund).
 */
export const subprovDelivery = z.object({
  api_version: z.string().optional(),
  event: z
    .object({
      id: z.string().min(1).max(200),
      type: z.string().min(1).max(100),
      // Bounded by the largest time a Date holds: beyond it, toISOString would throw.
      event_timestamp_ms: z.number().int().nonnegative().max(8.64e15),
      app_user_id: z.string().max(200).nullish(),
      original_app_user_id: z.string().max(200).nullish(),
      product_id: z.string().nullish(),
      new_product_id: z.string().nullish(),
      period_type: z.string().nullish(),
      purchased_at_ms: z.number().int().nonnegative().max(8.64e15).nullish(),
      environment: z.string().nullish(),
      entitlement_ids: z.array(z.string()).nullish(),
      price: z.number().finite().nullish(),
      transferred_from: z.array(z.string()).nullish(),
      transferred_to: z.array(z.string()).nullish(),
    })
    .passthrough(),
});
export type SubprovEvent = z.infer<typeof subprovDelivery>["event"];

export type WebhookEventType = (typeof SUBPROV_WEBHOOK_EVENTS)[number];
export const isHandledEvent = (type: string): type is WebhookEventType => (SUBPROV_WEBHOOK_EVENTS as readonly string[]).includes(type);

/** The provider's own anonymous ids (`$RCAnonymousID:<hex>`): nobody to re-sync under them. */
export const PROVIDER_ANONYMOUS_PREFIX = "$RCAnonymousID:";

/** The users a TRANSFER affects that can be re-synced: neither the provider's anonymous ids nor ours, each once. */
export function transferredUsers(event: SubprovEvent): string[] {
  const ids = [...(event.transferred_from ?? []), ...(event.transferred_to ?? [])].map((id) => id.trim());
  return [...new Set(ids.filter((id) => id !== "" && !id.startsWith(PROVIDER_ANONYMOUS_PREFIX) && !isAnonymousId(id)))].sort();
}

/** The user a non-TRANSFER event is about: `app_user_id`, else `original_app_user_id`; null without either. */
export function eventUser(event: SubprovEvent): string | null {
  // The provider's anonymous ids name nobody this service knows; the original id may.
  const known = (id: string | null | undefined) => (id?.trim() && !id.trim().startsWith(PROVIDER_ANONYMOUS_PREFIX) ? id.trim() : undefined);
  const id = known(event.app_user_id) ?? known(event.original_app_user_id);
  return id ? id : null;
}

const clip = (value: string): string => Array.from(value).slice(0, MAX_PROPERTY_VALUE_CHARS).join("");
const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/** The purchase-side properties an event carries when it does (product, purchase time, entitlements, period type). */
function purchaseProperties(event: SubprovEvent, product: string | null | undefined): Properties {
  const properties: Properties = {};
  if (product) properties.sp_product = clip(product);
  const purchased = iso(event.purchased_at_ms);
  if (purchased) properties.sp_last_purchase = purchased;
  if (event.entitlement_ids) properties.sp_entitlements = clip([...event.entitlement_ids].sort().join(","));
  if (event.period_type) properties.sp_period_type = clip(event.period_type.toLowerCase());
  return properties;
}

/**
 * The `sp_*` properties an event sets (keys it does not name keep their value; an empty string
 * removes one). The mapping is in docs/integrations.md.
 */
export function webhookProperties(type: Exclude<WebhookEventType, "TRANSFER">, event: SubprovEvent): Properties {
  switch (type) {
    case "INITIAL_PURCHASE":
    case "RENEWAL":
    case "UNCANCELLATION":
      return { sp_subscriber: "true", sp_status: "active", sp_will_renew: "true", ...purchaseProperties(event, event.product_id) };
    case "PRODUCT_CHANGE":
      return { sp_subscriber: "true", sp_status: "active", sp_will_renew: "true", ...purchaseProperties(event, event.new_product_id ?? event.product_id) };
    case "CANCELLATION":
      return { sp_status: "cancelled", sp_will_renew: "false" };
    case "BILLING_ISSUE":
      return { sp_status: "billing_issue" };
    case "EXPIRATION":
      return { sp_subscriber: "false", sp_status: "expired", sp_will_renew: "false", sp_entitlements: "" };
  }
}

/** The revenue an event adds, in USD cents (a refund subtracts); null when it carries no price. */
export function webhookRevenueCents(event: SubprovEvent): number | null {
  if (event.price === null || event.price === undefined || event.price === 0) return null;
  return Math.round(event.price * 100);
}

/** Whether an event belongs to the configured environment (`production` unless set); events without one do. */
export const inEnvironment = (event: SubprovEvent, configured: string | undefined): boolean =>
  !event.environment || event.environment.toLowerCase() === (configured ?? "production");
