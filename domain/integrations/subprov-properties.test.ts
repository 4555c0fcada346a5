import { describe, expect, it } from "vitest";
import { billingPeriodOf, entitlementProperties, lifetimeRevenueCents, subscriptionProperties, type Subscription } from "./subprov-properties.ts";
import { eventUser, subprovDelivery, transferredUsers, webhookProperties, webhookRevenueCents } from "./subprov-webhook.ts";

const NOW = new Date("2026-11-26T03:00:00.000Z");
const DAY = 86_400_000;
const at = (days: number) => new Date(NOW.getTime() + days * DAY).toISOString();

const subscription = (overrides: Partial<Subscription> = {}): Subscription => ({
  status: "active",
  auto_renewal_status: "will_renew",
  gives_access: true,
  starts_at: NOW.getTime() - 100 * DAY,
  current_period_starts_at: NOW.getTime() - 5 * DAY,
  current_period_ends_at: NOW.getTime() + 25 * DAY,
  total_revenue_usd: 29.97,
  ...overrides,
});

describe("sp_* properties from the REST API", () => {
  it("reads subscriber, entitlements, product and purchase from the entitlements, active ones first", () => {
    const properties = entitlementProperties(
      {
        pro: { expires_date: at(10), product_identifier: "pro_monthly", purchase_date: at(-20) },
        lifetime: { expires_date: null, product_identifier: "lifetime", purchase_date: at(-300) },
        old: { expires_date: at(-1), product_identifier: "basic", purchase_date: at(-2) },
      },
      NOW,
    );
    expect(properties).toEqual({ sp_subscriber: "true", sp_status: "active", sp_entitlements: "lifetime,pro", sp_product: "pro_monthly", sp_last_purchase: at(-20) });
    expect(entitlementProperties({ old: { expires_date: at(-1), product_identifier: "basic", purchase_date: at(-30) } }, NOW)).toMatchObject({
      sp_subscriber: "false",
      sp_status: "expired",
      sp_entitlements: "",
      sp_product: "basic",
    });
    expect(entitlementProperties({}, NOW)).toMatchObject({ sp_subscriber: "false", sp_status: "none", sp_product: "", sp_last_purchase: "" });
  });

  it("reads status, renewal, period type and billing period from the current subscription, and sums the revenue", () => {
    const trial = subscription({ status: "trialing", auto_renewal_status: "will_not_renew", current_period_ends_at: NOW.getTime() + 2 * DAY, current_period_starts_at: NOW.getTime() - 5 * DAY });
    const expired = subscription({ status: "expired", gives_access: false, total_revenue_usd: 10 });
    expect(subscriptionProperties([expired, trial])).toEqual({ sp_status: "trialing", sp_will_renew: "false", sp_period_type: "trial", sp_billing_period: "P1W" });
    expect(subscriptionProperties([subscription()])).toMatchObject({ sp_status: "active", sp_will_renew: "true", sp_period_type: "normal", sp_billing_period: "P1M" });
    expect(subscriptionProperties([])).toEqual({ sp_will_renew: "false", sp_period_type: "", sp_billing_period: "" });
    expect(lifetimeRevenueCents([subscription(), expired])).toBe(3997);
    expect(billingPeriodOf(0, 365 * DAY)).toBe("P1Y");
    expect(billingPeriodOf(0, 91 * DAY)).toBe("P3M");
  });
});

describe("sp_* properties from webhook events", () => {
  const event = (fields: Record<string, unknown>) => subprovDelivery.parse({ event: { id: "e1", type: "RENEWAL", event_timestamp_ms: NOW.getTime(), ...fields } }).event;

  it("names the user by app_user_id, else original_app_user_id", () => {
    expect(eventUser(event({ app_user_id: "a", original_app_user_id: "b" }))).toBe("a");
    expect(eventUser(event({ app_user_id: null, original_app_user_id: "b" }))).toBe("b");
    expect(eventUser(event({ app_user_id: " " }))).toBeNull();
    // The provider's anonymous ids name nobody here: its original id may, else nobody.
    expect(eventUser(event({ app_user_id: "$RCAnonymousID:abc", original_app_user_id: "b" }))).toBe("b");
    expect(eventUser(event({ app_user_id: "$RCAnonymousID:abc", original_app_user_id: "$RCAnonymousID:abc" }))).toBeNull();
    expect(() => event({ event_timestamp_ms: 9e15 })).toThrow();
  });

  it("maps each event type and counts its price in cents", () => {
    const renewal = event({ app_user_id: "a", product_id: "pro", period_type: "NORMAL", purchased_at_ms: NOW.getTime(), entitlement_ids: ["pro", "extra"], price: 9.99 });
    expect(webhookProperties("RENEWAL", renewal)).toEqual({
      sp_subscriber: "true",
      sp_status: "active",
      sp_will_renew: "true",
      sp_product: "pro",
      sp_last_purchase: NOW.toISOString(),
      sp_entitlements: "extra,pro",
      sp_period_type: "normal",
    });
    expect(webhookRevenueCents(renewal)).toBe(999);
    expect(webhookRevenueCents(event({ price: -4.99 }))).toBe(-499);
    expect(webhookRevenueCents(event({ price: 0 }))).toBeNull();
    expect(webhookProperties("PRODUCT_CHANGE", event({ product_id: "a", new_product_id: "b" }))).toMatchObject({ sp_product: "b" });
    expect(webhookProperties("CANCELLATION", renewal)).toEqual({ sp_status: "cancelled", sp_will_renew: "false" });
    expect(webhookProperties("BILLING_ISSUE", renewal)).toEqual({ sp_status: "billing_issue" });
    expect(webhookProperties("EXPIRATION", renewal)).toEqual({ sp_subscriber: "false", sp_status: "expired", sp_will_renew: "false", sp_entitlements: "" });
  });

  it("drops anonymous ids from a transfer and keeps each user once", () => {
    const transfer = event({ type: "TRANSFER", transferred_from: ["$RCAnonymousID:abc", "u1"], transferred_to: ["u2", "u1", "svc_anon_x"] });
    expect(transferredUsers(transfer)).toEqual(["u1", "u2"]);
  });
});
