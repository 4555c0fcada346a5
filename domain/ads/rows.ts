/** What a breakdown group holds before it becomes an AdsRow (projections/ads/queries.ts). */
export type AdsGroup = {
  id: string;
  name: string | null;
  user_count: number;
  paid_user_count: number;
  retained_user_count: number;
  revenue_cents: number;
  status: string | null;
  start_date: string | null;
  /** Decimal string in `currency`; null when the network reported none. */
  spend: string | null;
  /** The account's currency; null when the project's ads were never synced. */
  currency: string | null;
};

/** The SPEC's AdsRow. */
export type AdsRow = {
  id: string;
  name: string | null;
  user_count: number;
  paid_user_count: number;
  retained_user_count: number;
  total_revenue_usd: number;
  arpu: number;
  total_spend_usd: number | null;
  roas: number | null;
  start_date: string | null;
  status: string | null;
};

/** Money in USD to the cent, ratios to four places: the answer's numbers never carry float noise. */
const toCents = (value: number): number => Math.round(value * 100) / 100;
const toRatio = (value: number): number => Math.round(value * 10_000) / 10_000;

/**
 * Spend counts in USD only when the account is a USD one; any other currency (the ads answer's
 * `currency_warning`) or no sync at all leaves it null, and ROAS with it.
 */
export const usdSpend = (spend: string | null, currency: string | null): number | null =>
  currency === "USD" && spend !== null ? toCents(Number(spend)) : null;

/** ROAS = revenue / spend; null when spend is null or 0. */
export const roasOf = (revenueUsd: number, spendUsd: number | null): number | null =>
  spendUsd === null || spendUsd === 0 ? null : toRatio(revenueUsd / spendUsd);

export function adsRow(group: AdsGroup): AdsRow {
  const revenue = group.revenue_cents / 100;
  const spend = usdSpend(group.spend, group.currency);
  return {
    id: group.id,
    name: group.name,
    user_count: group.user_count,
    paid_user_count: group.paid_user_count,
    retained_user_count: group.retained_user_count,
    total_revenue_usd: revenue,
    arpu: group.user_count === 0 ? 0 : toCents(revenue / group.user_count),
    total_spend_usd: spend,
    roas: roasOf(revenue, spend),
    start_date: group.start_date,
    status: group.status,
  };
}
