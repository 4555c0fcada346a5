import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ADS_WINDOW_DAYS } from "../../../domain/ads/sync.ts";
import type { ProjectJobType } from "../../../domain/jobs/catalogue.ts";
import { DomainError, notFound } from "../../../domain/shared/errors.ts";
import { adEntityName, adsBreakdown, adsSyncState } from "../../../projections/ads/queries.ts";
import { activeApp, projectAppIds, projectsOfTeams } from "../../../projections/directory/catalog-queries.ts";
import { activeIntegration } from "../../../projections/integrations/queries.ts";
import { rowsOf, totalsOf, windowStart } from "../ads/answers.ts";
import { team, visibleTeams, type Rule } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../resource-access.ts";
import {
  adGroupsBody,
  adGroupsParams,
  adsProjectParams,
  adsProjectQuery,
  adsSyncBody,
  adsTeamQuery,
  campaignsBody,
  exampleAdGroups,
  exampleCampaigns,
  exampleLeaves,
  leavesBody,
  leavesParams,
  teamCampaignsBody,
} from "../schemas/ads.ts";
import { startJob } from "../start-job.ts";
import { errorBody, TAGS } from "../schemas/common.ts";

/** SPEC, Ads: `users:read` for reads, `users:write` plus admin for sync. */
const READ: Rule = { permission: "users:read", role: "member" };
const SYNC: Rule = { permission: "users:write", role: "admin" };
const tags = [TAGS.users];


/** `/v1/projects/:projectId/ads…`: a project's breakdowns and its sync. */
export function projectAdsRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  /**
   * Checks the project, and the app when the query names one (404 for an app outside the project).
   * Returns the app filter to apply: none when the app is the only one the project ever had
   * (deleted ones included), since every user of the project was then seen in it; the common case
   * of one app per project then skips the join with app_user_apps.
   */
  async function scope(caller: Principal, projectId: string, appId: string | undefined): Promise<string | undefined> {
    await accessibleProject(deps, caller, projectId, READ);
    if (appId === undefined) return undefined;
    if ((await activeApp(deps.pool, appId))?.project_id !== projectId) throw notFound("app");
    const apps = await projectAppIds(deps.pool, projectId);
    return apps.length === 1 && apps[0] === appId ? undefined : appId;
  }

  /**
   * Starts one run of `jobType` for the project, or answers the run already pending or running
   * (a sync asked for twice is one sync).
   */
  async function start(caller: Principal, teamId: string, projectId: string, jobType: ProjectJobType): Promise<string> {
    try {
      return await startJob(deps, caller, { teamId, projectId, jobType });
    } catch (error) {
      const existing = error instanceof DomainError && error.code === "conflict" ? error.extra.existing_run_id : undefined;
      if (typeof existing === "string") return existing;
      throw error;
    }
  }

  return async (app) => {
    app.get(
      "/campaigns",
      {
        schema: {
          summary: "Search-ads campaigns of a project",
          description:
            "Attributed users first seen in the last 360 days, by campaign: users, paid and retained users, revenue, ARPU, and the campaign's " +
            "name, status, start date and spend from the last adnet_sync. Ranked by revenue, then users, then id.",
          tags,
          params: adsProjectParams,
          querystring: adsProjectQuery,
          response: { 200: campaignsBody, 404: errorBody },
          examples: { 200: exampleCampaigns },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const { projectId } = request.params;
        const { limit } = request.query;
        const appId = await scope(request.caller, projectId, request.query.app_id);
        const [rows, state] = await Promise.all([
          adsBreakdown(deps.pool, { projectIds: [projectId], appId, level: "campaign", since: windowStart(new Date()), limit }),
          adsSyncState(deps.pool, [projectId]),
        ]);
        return {
          attribution_source: "adnet_search" as const,
          campaigns: rowsOf(rows),
          ...totalsOf(rows, state.foreign_currency),
          window_days: ADS_WINDOW_DAYS,
          revenue_synced_at: state.revenue_synced_at,
          ad_metrics_synced_at: state.ad_metrics_synced_at,
          currency_warning: state.foreign_currency,
        };
      },
    );

    app.get(
      "/campaigns/:campaignId/ad-groups",
      {
        schema: {
          summary: "Ad groups of a search-ads campaign",
          description: "The campaign's attributed users of the last 360 days by ad group, ranked like the campaigns.",
          tags,
          params: adGroupsParams,
          querystring: adsProjectQuery,
          response: { 200: adGroupsBody, 404: errorBody },
          examples: { 200: exampleAdGroups },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const { projectId, campaignId } = request.params;
        const { limit } = request.query;
        const appId = await scope(request.caller, projectId, request.query.app_id);
        const [rows, state, campaignName] = await Promise.all([
          adsBreakdown(deps.pool, { projectIds: [projectId], appId, campaignId, level: "ad_group", since: windowStart(new Date()), limit }),
          adsSyncState(deps.pool, [projectId]),
          adEntityName(deps.pool, projectId, "campaign", campaignId),
        ]);
        return {
          attribution_source: "adnet_search" as const,
          campaign_id: campaignId,
          campaign_name: campaignName,
          ad_groups: rowsOf(rows),
          total_spend_usd: totalsOf(rows, state.foreign_currency).total_spend_usd,
          window_days: ADS_WINDOW_DAYS,
          ad_metrics_synced_at: state.ad_metrics_synced_at,
          currency_warning: state.foreign_currency,
        };
      },
    );

    app.get(
      "/campaigns/:campaignId/ad-groups/:adGroupId/leaves",
      {
        schema: {
          summary: "Keywords and ads of a search-ads ad group",
          description: "The ad group's attributed users of the last 360 days by keyword and by ad, each ranked like the campaigns.",
          tags,
          params: leavesParams,
          querystring: adsProjectQuery,
          response: { 200: leavesBody, 404: errorBody },
          examples: { 200: exampleLeaves },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const { projectId, campaignId, adGroupId } = request.params;
        const { limit } = request.query;
        const appId = await scope(request.caller, projectId, request.query.app_id);
        const within = { projectIds: [projectId], appId, campaignId, adGroupId, since: windowStart(new Date()), limit };
        const [keywords, ads, campaignName, adGroupName] = await Promise.all([
          adsBreakdown(deps.pool, { ...within, level: "keyword" }),
          adsBreakdown(deps.pool, { ...within, level: "ad" }),
          adEntityName(deps.pool, projectId, "campaign", campaignId),
          adEntityName(deps.pool, projectId, "ad_group", adGroupId),
        ]);
        return {
          attribution_source: "adnet_search" as const,
          campaign_id: campaignId,
          campaign_name: campaignName,
          ad_group_id: adGroupId,
          ad_group_name: adGroupName,
          keywords: rowsOf(keywords),
          ads: rowsOf(ads),
          window_days: ADS_WINDOW_DAYS,
        };
      },
    );

    app.post(
      "/sync",
      {
        schema: {
          summary: "Sync revenue and ad metrics now",
          description:
            "Starts a subprov_sync (user revenue) and an adnet_sync (campaigns, spend) for the project, or answers the run of either " +
            "that is already pending or running. Without an enabled subscription provider integration there is no revenue to sync: " +
            "only adnet_sync starts and `revenuecat_job_run_id` is null. Each run reports its own outcome (GET /v1/jobs/:runId).",
          tags,
          params: adsProjectParams,
          response: { 200: adsSyncBody, 404: errorBody },
          examples: { 200: { syncing: true, revenuecat_job_run_id: "0b9d6f7e-2f43-4f55-9a8e-3c1e6b1f2a10", adnet_job_run_id: "4c2a9e1d-7b6f-4e0a-8d3c-5f1b2a3c4d5e" } },
        },
        config: { access: team(SYNC) },
      },
      async (request) => {
        const { projectId } = request.params;
        const project = await accessibleProject(deps, request.caller, projectId, SYNC);
        const subprov = await activeIntegration(deps.pool, projectId, "subprov");
        const [revenue, adnet] = await Promise.all([
          subprov?.enabled ? start(request.caller, project.team_id, projectId, "subprov_sync") : null,
          start(request.caller, project.team_id, projectId, "adnet_sync"),
        ]);
        return { syncing: true as const, revenuecat_job_run_id: revenue, adnet_job_run_id: adnet };
      },
    );
  };
}

/** `GET /v1/ads/campaigns`: campaigns across the projects of the caller's teams (or of `team_id`). */
export function teamAdsRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/campaigns",
      {
        schema: {
          summary: "Search-ads campaigns across projects",
          description:
            "Like a project's campaigns, over every project of the caller's teams (or of `team_id`); rows carry `project_id`, and each row's " +
            "spend is its project's. A team the caller cannot see gives an empty answer.",
          tags,
          querystring: adsTeamQuery,
          response: { 200: teamCampaignsBody },
          examples: { 200: { ...exampleCampaigns, campaigns: exampleCampaigns.campaigns.map((row) => ({ ...row, project_id: "5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d" })) } },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const { team_id: teamId, limit } = request.query;
        const teams = await visibleTeams(deps, request.caller, READ, teamId);
        const projectIds = teams.length === 0 ? [] : (await projectsOfTeams(deps.pool, teams)).map((project) => project.id);
        const [rows, state] = await Promise.all([
          adsBreakdown(deps.pool, { projectIds, level: "campaign", since: windowStart(new Date()), limit }),
          adsSyncState(deps.pool, projectIds),
        ]);
        return {
          attribution_source: "adnet_search" as const,
          campaigns: rowsOf(rows).map((row, index) => ({ ...row, project_id: rows[index]!.project_id })),
          ...totalsOf(rows, state.foreign_currency),
          window_days: ADS_WINDOW_DAYS,
          revenue_synced_at: state.revenue_synced_at,
          ad_metrics_synced_at: state.ad_metrics_synced_at,
          currency_warning: state.foreign_currency,
        };
      },
    );
  };
}
