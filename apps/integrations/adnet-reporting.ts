import { z } from "zod";
import type { AdEntity } from "../../domain/ads/events.ts";
import type { AdnetReportingConfig } from "../config.ts";
import { DEFAULT_RETRY, ProviderError, providerJson, type RetryPolicy } from "./provider-http.ts";

const PROVIDER = "ad network (adnet) reporting";
/** The most rows a report page may ask for. */
const PAGE_SIZE = 1_000;
/** A runaway pagination (a provider answering the same page forever) stops here. */
const MAX_PAGES = 200;

/** The reporting period: `startTime` and `endTime` (YYYY-MM-DD, UTC, both included). */
export type ReportPeriod = { startTime: string; endTime: string };

const idValue = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String);
const money = z.object({ amount: z.string().regex(/^-?\d+(\.\d+)?$/), currency: z.string() });
const row = <M extends z.ZodTypeAny>(metadata: M) => z.object({ metadata, total: z.object({ localSpend: money.nullish() }).passthrough().nullish() });
const reportPage = <M extends z.ZodTypeAny>(metadata: M) =>
  z.object({
    data: z.object({ reportingDataResponse: z.object({ row: z.array(row(metadata)).nullish() }) }),
    pagination: z.object({ totalResults: z.number().int().nonnegative(), startIndex: z.number().int().nonnegative() }).nullish(),
  });

const common = { deleted: z.boolean().nullish(), displayStatus: z.string().nullish(), startTime: z.string().nullish(), creationTime: z.string().nullish() };
const campaignMeta = z.object({ campaignId: idValue, campaignName: z.string().nullish(), campaignStatus: z.string().nullish(), ...common });
const adGroupMeta = z.object({ adGroupId: idValue, adGroupName: z.string().nullish(), campaignId: idValue.nullish(), adGroupStatus: z.string().nullish(), ...common });
const keywordMeta = z.object({ keywordId: idValue, keyword: z.string().nullish(), adGroupId: idValue, keywordStatus: z.string().nullish(), ...common });
const adMeta = z.object({ adId: idValue, adName: z.string().nullish(), adGroupId: idValue, status: z.string().nullish(), ...common });
const acls = z.object({
  data: z.array(z.object({ orgId: idValue, currency: z.string().nullish(), currencyCode: z.string().nullish() }).passthrough()),
});

type Row<M> = { metadata: M; total?: { localSpend?: { amount: string; currency: string } | null } | null };

/** `ENABLED`, `PAUSED`… as the network states it; a deleted entity is `DELETED` whatever its last status. */
const statusOf = (meta: { deleted?: boolean | null; displayStatus?: string | null }, own: string | null | undefined): string | null =>
  meta.deleted ? "DELETED" : (own ?? meta.displayStatus ?? null);
const dateOf = (meta: { startTime?: string | null; creationTime?: string | null }): string | null => {
  const value = meta.startTime ?? meta.creationTime;
  return value && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null;
};
const spendOf = (row: Row<unknown>): string | null => row.total?.localSpend?.amount ?? null;

/**
 * The ad network's Campaign Management API (v5), read with the instance's ad account: the org's
 * currency from `GET /api/v5/acls` and the campaign, ad group, keyword and ad reports
 * (`POST /api/v5/reports/campaigns…`) over one period, with every entity (also those without
 * metrics) and its total `localSpend`. docs/integrations.md ("Ad network") lists the fields.
 * Reports are reads, so every call is retried (DEFAULT_RETRY) on 429, 5xx and timeouts.
 */
export function adnetReportingClient(config: AdnetReportingConfig, retry: RetryPolicy = DEFAULT_RETRY) {
  const headers = { authorization: `Bearer ${config.accessToken}`, "x-ap-context": `orgId=${config.orgId}` };

  const call = (method: "GET" | "POST", path: string, body: unknown, signal?: AbortSignal) =>
    providerJson({ provider: PROVIDER, url: `${config.baseUrl}${path}`, method, headers, body, timeoutMs: config.timeoutMs, retry, signal });

  const parse = <T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, body: unknown, what: string): T => {
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ProviderError(PROVIDER, 200, `answered ${what} in an unexpected shape (${issue?.path.join(".") || "body"}: ${issue?.message})`);
    }
    return parsed.data;
  };

  /** Every row of one report, page by page. */
  async function report<M>(path: string, metadata: z.ZodType<M, z.ZodTypeDef, unknown>, orderField: string, period: ReportPeriod, signal?: AbortSignal): Promise<Row<M>[]> {
    const rows: Row<M>[] = [];
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const body = {
        startTime: period.startTime,
        endTime: period.endTime,
        timeZone: "UTC",
        returnRecordsWithNoMetrics: true,
        returnRowTotals: true,
        returnGrandTotals: false,
        selector: { orderBy: [{ field: orderField, sortOrder: "ASCENDING" }], pagination: { offset: rows.length, limit: PAGE_SIZE } },
      };
      const answer = parse(reportPage(metadata), await call("POST", path, body, signal), `the report ${path}`) as {
        data: { reportingDataResponse: { row?: Row<M>[] | null } };
        pagination?: { totalResults: number } | null;
      };
      const pageRows = answer.data.reportingDataResponse.row ?? [];
      rows.push(...pageRows);
      const total = answer.pagination?.totalResults ?? rows.length;
      if (pageRows.length === 0 || rows.length >= total) return rows;
    }
    throw new ProviderError(PROVIDER, 200, `the report ${path} has more than ${MAX_PAGES} pages`);
  }

  return {
    /** The ad account's currency (ISO 4217), from the org's entry among the caller's ACLs. @throws ProviderError */
    async currency(signal?: AbortSignal): Promise<string> {
      const answer = parse(acls, await call("GET", "/api/v5/acls", undefined, signal), "the ACLs");
      const org = answer.data.find((entry) => entry.orgId === config.orgId);
      const currency = org?.currency ?? org?.currencyCode;
      if (!org) throw new ProviderError(PROVIDER, 200, "the access token does not reach the configured org");
      if (!currency || !/^[A-Z]{3}$/.test(currency)) throw new ProviderError(PROVIDER, 200, "the org has no currency code");
      return currency;
    },

    async campaigns(period: ReportPeriod, signal?: AbortSignal): Promise<AdEntity[]> {
      const rows = await report("/api/v5/reports/campaigns", campaignMeta, "campaignId", period, signal);
      return rows.map(({ metadata: m, total }) => ({
        id: m.campaignId,
        campaign_id: m.campaignId,
        ad_group_id: null,
        name: m.campaignName ?? null,
        status: statusOf(m, m.campaignStatus),
        start_date: dateOf(m),
        spend: spendOf({ metadata: m, total }),
      }));
    },

    async adGroups(campaignId: string, period: ReportPeriod, signal?: AbortSignal): Promise<AdEntity[]> {
      const rows = await report(`/api/v5/reports/campaigns/${encodeURIComponent(campaignId)}/adgroups`, adGroupMeta, "adGroupId", period, signal);
      return rows.map(({ metadata: m, total }) => ({
        id: m.adGroupId,
        campaign_id: campaignId,
        ad_group_id: m.adGroupId,
        name: m.adGroupName ?? null,
        status: statusOf(m, m.adGroupStatus),
        start_date: dateOf(m),
        spend: spendOf({ metadata: m, total }),
      }));
    },

    async keywords(campaignId: string, period: ReportPeriod, signal?: AbortSignal): Promise<AdEntity[]> {
      const rows = await report(`/api/v5/reports/campaigns/${encodeURIComponent(campaignId)}/keywords`, keywordMeta, "keywordId", period, signal);
      return rows.map(({ metadata: m, total }) => ({
        id: m.keywordId,
        campaign_id: campaignId,
        ad_group_id: m.adGroupId,
        name: m.keyword ?? null,
        status: statusOf(m, m.keywordStatus),
        start_date: dateOf(m),
        spend: spendOf({ metadata: m, total }),
      }));
    },

    async ads(campaignId: string, period: ReportPeriod, signal?: AbortSignal): Promise<AdEntity[]> {
      const rows = await report(`/api/v5/reports/campaigns/${encodeURIComponent(campaignId)}/ads`, adMeta, "adId", period, signal);
      return rows.map(({ metadata: m, total }) => ({
        id: m.adId,
        campaign_id: campaignId,
        ad_group_id: m.adGroupId,
        name: m.adName ?? null,
        status: statusOf(m, m.status),
        start_date: dateOf(m),
        spend: spendOf({ metadata: m, total }),
      }));
    },
  };
}

export type AdnetReportingClient = ReturnType<typeof adnetReportingClient>;
