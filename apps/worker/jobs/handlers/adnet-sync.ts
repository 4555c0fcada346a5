import type { AdEntity } from "../../../../domain/ads/events.ts";
import { adsPeriod, adsSyncFacts } from "../../../../domain/ads/sync.ts";
import { appendAdsSync } from "../../../commands/ads-command.ts";
import type { CommandDeps } from "../../../commands/deps.ts";
import type { AdnetReportingConfig } from "../../../config.ts";
import { adnetReportingClient } from "../../../integrations/adnet-reporting.ts";
import type { RetryPolicy } from "../../../integrations/provider-http.ts";
import type { JobHandler } from "../job-context.ts";

export type AdnetSyncDeps = CommandDeps & { config: { adnetReporting: AdnetReportingConfig | null } };

/**
 * `adnet_sync`: pulls the ad account's campaigns, then each campaign's ad groups, keywords and
 * ads, with names, statuses, start dates and spend over the ads window (360 days), and the
 * account's currency; then appends them as facts on the project's ads subject (domain/ads/sync.ts).
 * Nothing is appended until the whole pull succeeded, so a failed run leaves the last complete
 * pull in place. Progress counts campaigns; each one is a cancellation point.
 */
export function adnetSync(deps: AdnetSyncDeps, retry?: RetryPolicy): JobHandler {
  return async ({ run, progress, signal }) => {
    const settings = deps.config.adnetReporting;
    if (!settings) throw new Error("the ad network (adnet) account is not configured: set ADNET_ORG_ID and ADNET_ACCESS_TOKEN");
    const client = adnetReportingClient(settings, retry);
    const now = new Date();
    const period = adsPeriod(now);
    const currency = await client.currency(signal);
    const campaigns = await client.campaigns(period, signal);
    const entities: Record<"ad_group" | "keyword" | "ad", AdEntity[]> = { ad_group: [], keyword: [], ad: [] };
    await progress(0, campaigns.length, `pulled ${campaigns.length} campaigns`);
    for (const [index, campaign] of campaigns.entries()) {
      entities.ad_group.push(...(await client.adGroups(campaign.id, period, signal)));
      entities.keyword.push(...(await client.keywords(campaign.id, period, signal)));
      entities.ad.push(...(await client.ads(campaign.id, period, signal)));
      await progress(index + 1, campaigns.length, `pulled campaign ${index + 1} of ${campaigns.length}`);
    }
    const facts = adsSyncFacts({
      projectId: run.projectId!,
      teamId: run.teamId!,
      syncId: run.id,
      syncedAt: now.toISOString(),
      currency,
      period,
      entities: { campaign: campaigns, ...entities },
    });
    await appendAdsSync(deps, run.id, run.projectId!, facts);
    return {
      currency,
      currency_warning: currency === "USD" ? null : currency,
      period_start: period.startTime,
      period_end: period.endTime,
      campaigns: campaigns.length,
      ad_groups: entities.ad_group.length,
      keywords: entities.keyword.length,
      ads: entities.ad.length,
    };
  };
}
