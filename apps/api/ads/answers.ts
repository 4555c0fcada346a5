import { adsRow, type AdsRow } from "../../../domain/ads/rows.ts";
import { ADS_WINDOW_DAYS } from "../../../domain/ads/sync.ts";
import type { AdsBreakdownRow } from "../../../projections/ads/queries.ts";

/** The first day whose users count: `first_seen_at` within the last ADS_WINDOW_DAYS days. */
export const windowStart = (now: Date): Date => new Date(now.getTime() - ADS_WINDOW_DAYS * 86_400_000);

export const rowsOf = (rows: readonly AdsBreakdownRow[]): AdsRow[] => rows.map(adsRow);

/**
 * The totals of a breakdown over all its groups (each row carries them; no row, no users).
 * Spend sums the USD spend of the groups; a non-USD account (`currencyWarning`) leaves it null.
 */
export function totalsOf(rows: readonly AdsBreakdownRow[], currencyWarning: string | null) {
  const first = rows[0];
  const spend = first?.total_usd_spend ?? null;
  return {
    total_user_count: first?.total_user_count ?? 0,
    total_paid_user_count: first?.total_paid_user_count ?? 0,
    total_retained_user_count: first?.total_retained_user_count ?? 0,
    total_revenue_usd: (first?.total_revenue_cents ?? 0) / 100,
    total_spend_usd: currencyWarning !== null || spend === null ? null : Math.round(Number(spend) * 100) / 100,
  };
}
