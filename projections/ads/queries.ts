import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { AdLevel } from "../../domain/ads/events.ts";

/**
 * What an ads breakdown covers: the attributed users of these projects (optionally only those
 * seen in `appId`) first seen at or after `since`, grouped by the ids of `level`, within one
 * campaign or ad group when named.
 */
export type AdsBreakdown = {
  projectIds: readonly string[];
  appId?: string;
  campaignId?: string;
  adGroupId?: string;
  level: AdLevel;
  since: Date;
  limit: number;
};

/** The app_users column holding each level's attribution id (migrations/003_ads_indexes.sql of app-users). */
const KEY_COLUMN: Record<AdLevel, string> = { campaign: "ads_campaign_id", ad_group: "ads_ad_group_id", keyword: "ads_keyword_id", ad: "ads_ad_id" };

const breakdownRow = z.object({
  project_id: z.string(),
  id: z.string(),
  user_count: z.number(),
  paid_user_count: z.number(),
  retained_user_count: z.number(),
  revenue_cents: z.number(),
  name: z.string().nullable(),
  status: z.string().nullable(),
  start_date: z.string().nullable(),
  /** In the account's currency, as the network reported it. */
  spend: z.string().nullable(),
  currency: z.string().nullable(),
  total_user_count: z.number(),
  total_paid_user_count: z.number(),
  total_retained_user_count: z.number(),
  total_revenue_cents: z.number(),
  /** The USD spend of every group (not only this page): null when none has one. */
  total_usd_spend: z.string().nullable(),
});
export type AdsBreakdownRow = z.infer<typeof breakdownRow>;

/**
 * One breakdown, ranked by revenue, then users, then id (then project, team-wide), at most `limit`
 * rows; every row also carries the totals over all groups, computed before the limit. Counts and
 * revenue come from app_users (paid: lifetime revenue above 0; retained: billing status paid, i.e.
 * a subscriber not on trial), names, statuses, start dates and spend from the last ad network
 * pull. The scan reads only the partial `app_users_ads` index.
 */
export async function adsBreakdown(db: CommonQueryMethods, breakdown: AdsBreakdown): Promise<readonly AdsBreakdownRow[]> {
  if (breakdown.projectIds.length === 0) return [];
  const key = sql.identifier(["u", KEY_COLUMN[breakdown.level]]);
  const conditions = [
    sql.fragment`u.project_id = any(${sql.array(breakdown.projectIds, "uuid")})`,
    sql.fragment`u.ads_campaign_id is not null`,
    sql.fragment`${key} is not null`,
    sql.fragment`u.first_seen_at >= ${breakdown.since.toISOString()}::timestamptz`,
  ];
  if (breakdown.campaignId !== undefined) conditions.push(sql.fragment`u.ads_campaign_id = ${breakdown.campaignId}`);
  if (breakdown.adGroupId !== undefined) conditions.push(sql.fragment`u.ads_ad_group_id = ${breakdown.adGroupId}`);
  if (breakdown.appId !== undefined) {
    // EXISTS becomes a semi-join: the app's links are read once through app_user_apps_by_app and hashed.
    conditions.push(sql.fragment`exists (select 1 from app_user_apps l where l.app_id = ${breakdown.appId} and l.project_id = u.project_id and l.user_id = u.user_id)`);
  }
  return db.any(sql.type(breakdownRow)`
    with grouped as (
      select u.project_id, ${key} as id,
             count(*)::int as user_count,
             count(*) filter (where u.lifetime_revenue_usd_cents > 0)::int as paid_user_count,
             count(*) filter (where u.billing_status = 'paid')::int as retained_user_count,
             coalesce(sum(u.lifetime_revenue_usd_cents), 0)::bigint as revenue_cents
        from app_users u
       where ${sql.join(conditions, sql.fragment` and `)}
       group by u.project_id, ${key}
    )
    select g.project_id, g.id, g.user_count, g.paid_user_count, g.retained_user_count, g.revenue_cents,
           e.name, e.status, e.start_date::text as start_date, e.spend::text as spend, a.currency,
           (sum(g.user_count) over ())::int as total_user_count,
           (sum(g.paid_user_count) over ())::int as total_paid_user_count,
           (sum(g.retained_user_count) over ())::int as total_retained_user_count,
           (sum(g.revenue_cents) over ())::bigint as total_revenue_cents,
           (sum(case when a.currency = 'USD' then e.spend end) over ())::text as total_usd_spend
      from grouped g
      left join ad_entities e on e.project_id = g.project_id and e.level = ${breakdown.level} and e.id = g.id
      left join ad_accounts a on a.project_id = g.project_id
     order by g.revenue_cents desc, g.user_count desc, g.id asc, g.project_id asc
     limit ${breakdown.limit}`);
}

const syncTimes = z.object({
  revenue_synced_at: z.string().nullable(),
  ad_metrics_synced_at: z.string().nullable(),
  /** The first account currency other than USD among the projects, alphabetically. */
  foreign_currency: z.string().nullable(),
});

/** When the projects' user revenue and ad metrics were last synced, and whether an account is not in USD. */
export async function adsSyncState(db: CommonQueryMethods, projectIds: readonly string[]) {
  if (projectIds.length === 0) return { revenue_synced_at: null, ad_metrics_synced_at: null, foreign_currency: null };
  const ids = sql.array(projectIds, "uuid");
  return db.one(sql.type(syncTimes)`
    select (select max(u.revenue_synced_at) from app_users u where u.project_id = any(${ids}) and u.revenue_synced_at is not null) as revenue_synced_at,
           (select max(a.synced_at) from ad_accounts a where a.project_id = any(${ids})) as ad_metrics_synced_at,
           (select min(a.currency) from ad_accounts a where a.project_id = any(${ids}) and a.currency <> 'USD') as foreign_currency`);
}

/** The name of one entity of a project's last pull, null when the network never reported it. */
export async function adEntityName(db: CommonQueryMethods, projectId: string, level: AdLevel, id: string): Promise<string | null> {
  const row = await db.maybeOne(sql.type(z.object({ name: z.string().nullable() }))`
    select name from ad_entities where project_id = ${projectId} and level = ${level} and id = ${id}`);
  return row?.name ?? null;
}

/**
 * The projects the daily adnet_sync runs for: active projects with at least one user attributed
 * to a search ad. One probe of the `app_users_ads` index per project.
 */
export const projectsWithAttributedUsers = (db: CommonQueryMethods) =>
  db.any(sql.type(z.object({ project_id: z.string(), team_id: z.string() }))`
    select p.id as project_id, p.team_id from projects p
     where p.deleted_at is null
       and exists (select 1 from app_users u where u.project_id = p.id and u.ads_campaign_id is not null)
     order by p.created_at, p.id`);
