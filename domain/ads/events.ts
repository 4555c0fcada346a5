import { z } from "zod";

/** The levels of an ad account the ads routes break users down by. */
export const AD_LEVELS = ["campaign", "ad_group", "keyword", "ad"] as const;
export type AdLevel = (typeof AD_LEVELS)[number];

/**
 * One campaign, ad group, keyword or ad as the ad network reported it. Ids are the network's
 * (decimal strings); `spend` is the total `localSpend` of the synced period in the account's
 * currency, a decimal string as the network writes it (no float rounding on the way).
 */
export const adEntity = z.object({
  id: z.string().min(1),
  campaign_id: z.string().min(1),
  ad_group_id: z.string().nullable(),
  name: z.string().nullable(),
  status: z.string().nullable(),
  start_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable(),
  spend: z.string().regex(/^-?\d+(\.\d+)?$/).nullable(),
});
export type AdEntity = z.infer<typeof adEntity>;

/**
 * Part of one `adnet_sync` run's pull, on `<ns>.d.ads.<project>`: the entities of one level, in
 * chunks small enough for a NATS message. They replace the project's rows of the same ids.
 */
export const adEntitiesSynced = z.object({
  type: z.literal("AdEntitiesSynced"),
  v: z.literal(1),
  project_id: z.string(),
  sync_id: z.string(),
  level: z.enum(AD_LEVELS),
  entities: z.array(adEntity),
});

/**
 * The run's pull is complete: the account's currency and the time of the pull
 * (`ad_metrics_synced_at`). Entities this sync did not report are no longer the network's and go.
 */
export const adMetricsSynced = z.object({
  type: z.literal("AdMetricsSynced"),
  v: z.literal(1),
  project_id: z.string(),
  team_id: z.string(),
  sync_id: z.string(),
  synced_at: z.string(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  period_start: z.string(),
  period_end: z.string(),
  counts: z.record(z.enum(AD_LEVELS), z.number().int().nonnegative()),
});

export const adsEvents = [adEntitiesSynced, adMetricsSynced] as const;
export type AdsFact = z.infer<(typeof adsEvents)[number]>;
