import { z } from "zod";
import { limitParam } from "../listing.ts";
import { uuid } from "../validation.ts";
import { timestamp } from "./common.ts";

/** The one attribution source the ads routes break down (SPEC, Ads). */
export const attributionSource = z.literal("adnet_search").default("adnet_search").describe("Attribution source; only adnet_search");
const networkId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, "must be an ad network id");

export const adsProjectParams = z.object({ projectId: uuid });
export const adGroupsParams = adsProjectParams.extend({ campaignId: networkId });
export const leavesParams = adGroupsParams.extend({ adGroupId: networkId });

export const adsProjectQuery = z.object({ attribution_source: attributionSource, app_id: uuid.optional(), limit: limitParam(500, 100) });
export const adsTeamQuery = z.object({ attribution_source: attributionSource, team_id: uuid.optional(), limit: limitParam(500, 100) });

const usd = z.number().describe("USD");
export const adsRowBody = z.object({
  id: z.string().describe("The ad network's id"),
  name: z.string().nullable(),
  user_count: z.number().int(),
  paid_user_count: z.number().int().describe("Users with lifetime revenue above 0"),
  retained_user_count: z.number().int().describe("Subscribers not on trial"),
  total_revenue_usd: usd,
  arpu: usd.describe("Revenue per user, 0 without users"),
  total_spend_usd: usd.nullable().describe("Null without synced spend or for a non-USD ad account"),
  roas: z.number().nullable().describe("Revenue / spend; null when spend is null or 0"),
  start_date: z.string().nullable().describe("YYYY-MM-DD"),
  status: z.string().nullable().describe("e.g. ENABLED, PAUSED, DELETED"),
});
const teamAdsRowBody = adsRowBody.extend({ project_id: z.string() });

const campaignsFields = {
  attribution_source: z.literal("adnet_search"),
  total_user_count: z.number().int(),
  total_paid_user_count: z.number().int(),
  total_retained_user_count: z.number().int(),
  total_revenue_usd: usd,
  total_spend_usd: usd.nullable(),
  window_days: z.number().int(),
  revenue_synced_at: timestamp.nullable(),
  ad_metrics_synced_at: timestamp.nullable(),
  currency_warning: z.string().nullable().describe("The ad account's currency when it is not USD"),
};
export const campaignsBody = z.object({ ...campaignsFields, campaigns: z.array(adsRowBody) });
export const teamCampaignsBody = z.object({ ...campaignsFields, campaigns: z.array(teamAdsRowBody) });

export const adGroupsBody = z.object({
  attribution_source: z.literal("adnet_search"),
  campaign_id: z.string(),
  campaign_name: z.string().nullable(),
  ad_groups: z.array(adsRowBody),
  total_spend_usd: usd.nullable(),
  window_days: z.number().int(),
  ad_metrics_synced_at: timestamp.nullable(),
  currency_warning: z.string().nullable(),
});

export const leavesBody = z.object({
  attribution_source: z.literal("adnet_search"),
  campaign_id: z.string(),
  campaign_name: z.string().nullable(),
  ad_group_id: z.string(),
  ad_group_name: z.string().nullable(),
  keywords: z.array(adsRowBody),
  ads: z.array(adsRowBody),
  window_days: z.number().int(),
});

export const adsSyncBody = z.object({
  syncing: z.literal(true),
  revenuecat_job_run_id: z.string().nullable().describe("The subprov_sync run; null when the project has no enabled subscription provider integration"),
  adnet_job_run_id: z.string(),
});

const exampleRow = {
  id: "542370539",
  name: "Brand - US",
  user_count: 120,
  paid_user_count: 18,
  retained_user_count: 11,
  total_revenue_usd: 431.82,
  arpu: 3.6,
  total_spend_usd: 210.5,
  roas: 2.0514,
  start_date: "2026-02-01",
  status: "ENABLED",
};
export const exampleCampaigns = {
  attribution_source: "adnet_search",
  campaigns: [exampleRow],
  total_user_count: 120,
  total_paid_user_count: 18,
  total_retained_user_count: 11,
  total_revenue_usd: 431.82,
  total_spend_usd: 210.5,
  window_days: 360,
  revenue_synced_at: "2026-11-26T03:00:41.000Z",
  ad_metrics_synced_at: "2026-11-26T04:45:12.000Z",
  currency_warning: null,
};
export const exampleAdGroups = {
  attribution_source: "adnet_search",
  campaign_id: "542370539",
  campaign_name: "Brand - US",
  ad_groups: [{ ...exampleRow, id: "542317095", name: "Exact" }],
  total_spend_usd: 210.5,
  window_days: 360,
  ad_metrics_synced_at: "2026-11-26T04:45:12.000Z",
  currency_warning: null,
};
export const exampleLeaves = {
  attribution_source: "adnet_search",
  campaign_id: "542370539",
  campaign_name: "Brand - US",
  ad_group_id: "542317095",
  ad_group_name: "Exact",
  keywords: [{ ...exampleRow, id: "87675432", name: "habit tracker", start_date: null }],
  ads: [{ ...exampleRow, id: "542317136", name: "Default ad" }],
  window_days: 360,
};
