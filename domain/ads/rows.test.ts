import { describe, expect, it } from "vitest";
import { adsRow, roasOf, usdSpend } from "./rows.ts";

const group = { id: "1", name: "Brand", user_count: 3, paid_user_count: 2, retained_user_count: 1, revenue_cents: 1000, status: "ENABLED", start_date: "2026-01-05", spend: "4.00", currency: "USD" };

describe("adsRow", () => {
  it("derives revenue, ARPU, spend and ROAS", () => {
    expect(adsRow(group)).toEqual({
      id: "1",
      name: "Brand",
      user_count: 3,
      paid_user_count: 2,
      retained_user_count: 1,
      total_revenue_usd: 10,
      arpu: 3.33,
      total_spend_usd: 4,
      roas: 2.5,
      start_date: "2026-01-05",
      status: "ENABLED",
    });
  });

  it("leaves spend and ROAS null for a non-USD account, no sync, or spend 0", () => {
    expect(adsRow({ ...group, currency: "EUR" })).toMatchObject({ total_spend_usd: null, roas: null });
    expect(adsRow({ ...group, currency: null, spend: null })).toMatchObject({ total_spend_usd: null, roas: null });
    expect(adsRow({ ...group, spend: "0" })).toMatchObject({ total_spend_usd: 0, roas: null });
  });

  it("answers ARPU 0 without users", () => {
    expect(adsRow({ ...group, user_count: 0, revenue_cents: 0 }).arpu).toBe(0);
  });
});

describe("usdSpend and roasOf", () => {
  it("round to the cent and to four places", () => {
    expect(usdSpend("12.346", "USD")).toBe(12.35);
    expect(roasOf(1, 3)).toBe(0.3333);
  });
});
