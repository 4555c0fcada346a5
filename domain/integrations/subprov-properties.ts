import { MAX_PROPERTY_VALUE_CHARS, type Properties } from "../identity/properties.ts";

/**
 * The SPEC's `sp_*` user properties from what the subscription provider reports (docs/integrations.md
 * maps each one). Values are strings of at most 200 characters; an empty string removes the key
 * (a user with no active entitlement has no `sp_entitlements`).
 */
export const SP_KEYS = ["sp_subscriber", "sp_status", "sp_will_renew", "sp_product", "sp_last_purchase", "sp_entitlements", "sp_period_type", "sp_billing_period"] as const;

/** An entitlement of a v1 subscriber (`subscriber.entitlements.<name>`). */
export type Entitlement = { expires_date: string | null; product_identifier: string; purchase_date: string };

/** A v2 subscription, reduced to what the properties and the revenue need. Times in ms. */
export type Subscription = {
  status: string;
  auto_renewal_status: string;
  gives_access: boolean;
  starts_at: number;
  current_period_starts_at: number | null;
  current_period_ends_at: number | null;
  /** `total_revenue_in_usd.gross`, in dollars. */
  total_revenue_usd: number;
};

const clip = (value: string): string => Array.from(value).slice(0, MAX_PROPERTY_VALUE_CHARS).join("");

const isActive = (entitlement: Entitlement, now: Date): boolean => entitlement.expires_date === null || Date.parse(entitlement.expires_date) > now.getTime();

/** Ties between equal purchase dates go to the later expiry, then the product id, so the choice never depends on key order. */
function latestOf(entitlements: Entitlement[]): Entitlement | undefined {
  const expiry = (e: Entitlement) => (e.expires_date === null ? Number.POSITIVE_INFINITY : Date.parse(e.expires_date));
  return [...entitlements].sort(
    (a, b) => Date.parse(b.purchase_date) - Date.parse(a.purchase_date) || expiry(b) - expiry(a) || a.product_identifier.localeCompare(b.product_identifier),
  )[0];
}

/**
 * What the entitlements alone tell (also the fallback when the subscriptions cannot be read):
 * whether the user is a subscriber, the active entitlements, the product and purchase date of
 * the latest entitlement (active ones first), and `active` / `expired` / `none`.
 */
export function entitlementProperties(entitlements: Record<string, Entitlement>, now: Date): Properties {
  const all = Object.values(entitlements);
  const activeNames = Object.entries(entitlements)
    .filter(([, entitlement]) => isActive(entitlement, now))
    .map(([name]) => name)
    .sort();
  const latest = latestOf(activeNames.length > 0 ? activeNames.map((name) => entitlements[name]!) : all);
  return {
    sp_subscriber: activeNames.length > 0 ? "true" : "false",
    sp_status: activeNames.length > 0 ? "active" : all.length > 0 ? "expired" : "none",
    sp_entitlements: clip(activeNames.join(",")),
    sp_product: clip(latest?.product_identifier ?? ""),
    sp_last_purchase: latest ? new Date(Date.parse(latest.purchase_date)).toISOString() : "",
  };
}

/** ISO 8601 duration of a billing period from its length (store periods: a week, 1, 2, 3 or 6 months, a year). */
export function billingPeriodOf(startMs: number, endMs: number): string {
  const days = (endMs - startMs) / 86_400_000;
  if (days <= 8) return "P1W";
  if (days <= 32) return "P1M";
  if (days <= 63) return "P2M";
  if (days <= 95) return "P3M";
  if (days <= 190) return "P6M";
  return "P1Y";
}

/** The subscription that describes the user now: one giving access with the latest period end, else the latest started. */
function currentOf(subscriptions: Subscription[]): Subscription | undefined {
  const giving = subscriptions.filter((subscription) => subscription.gives_access);
  const pool = giving.length > 0 ? giving : subscriptions;
  return [...pool].sort((a, b) => (b.current_period_ends_at ?? b.starts_at) - (a.current_period_ends_at ?? a.starts_at) || b.starts_at - a.starts_at)[0];
}

/**
 * What the subscriptions add to the entitlements: the current subscription's status, whether it
 * will renew, trial or normal period, and its billing period.
 */
export function subscriptionProperties(subscriptions: Subscription[]): Properties {
  const current = currentOf(subscriptions);
  if (!current) return { sp_will_renew: "false", sp_period_type: "", sp_billing_period: "" };
  const period =
    current.current_period_starts_at !== null && current.current_period_ends_at !== null
      ? billingPeriodOf(current.current_period_starts_at, current.current_period_ends_at)
      : "";
  return {
    sp_status: clip(current.status),
    sp_will_renew: current.auto_renewal_status === "will_renew" ? "true" : "false",
    sp_period_type: current.status === "trialing" ? "trial" : "normal",
    sp_billing_period: period,
  };
}

/** The user's lifetime revenue: the gross USD revenue of every subscription, in cents. */
export const lifetimeRevenueCents = (subscriptions: Subscription[]): number =>
  Math.max(0, Math.round(subscriptions.reduce((sum, subscription) => sum + subscription.total_revenue_usd, 0) * 100));
