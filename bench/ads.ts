import { randomUUID } from "node:crypto";
import pg from "pg";
import { append } from "../streams/append.ts";
import type { Log } from "../streams/connection.ts";
import { adGroupMeta, adMeta, campaignMeta, keywordMeta, startFakeAdnetReporting, type FakeAccount } from "../test/support/fake-adnet-reporting.ts";
import { waitUntil } from "../test/support/processes.ts";
import { streamHead } from "../test/support/streams.ts";
import { call } from "./fleet.ts";
import { measureQuery } from "./queries.ts";
import { round } from "./stats.ts";

const CAMPAIGNS = 50;
const AD_GROUPS_PER_CAMPAIGN = 4;
const KEYWORDS_PER_AD_GROUP = 10;
const ADS_PER_AD_GROUP = 2;
const IN_FLIGHT = 64;
const DAY_MS = 86_400_000;
const TOKEN = "bench-adnet-token";
const ORG = 4242;

/** An ad account of 50 campaigns, 200 ad groups, 2,000 keywords and 400 ads, all in USD. */
function benchAccount(): FakeAccount {
  const account: FakeAccount = { orgId: ORG, currency: "USD", campaigns: [], adGroups: {}, keywords: {}, ads: {} };
  for (let c = 0; c < CAMPAIGNS; c += 1) {
    const campaignId = 1_000 + c;
    account.campaigns.push({ metadata: campaignMeta(campaignId, `Campaign ${c}`), spend: `${100 + c}.00` });
    account.adGroups[campaignId] = [];
    account.keywords[campaignId] = [];
    account.ads[campaignId] = [];
    for (let g = 0; g < AD_GROUPS_PER_CAMPAIGN; g += 1) {
      const adGroupId = campaignId * 10 + g;
      account.adGroups[campaignId]!.push({ metadata: adGroupMeta(campaignId, adGroupId, `Group ${c}.${g}`), spend: "25.00" });
      for (let k = 0; k < KEYWORDS_PER_AD_GROUP; k += 1) account.keywords[campaignId]!.push({ metadata: keywordMeta(adGroupId, adGroupId * 100 + k, `keyword ${c}.${g}.${k}`), spend: "2.50" });
      for (let a = 0; a < ADS_PER_AD_GROUP; a += 1) account.ads[campaignId]!.push({ metadata: adMeta(campaignId, adGroupId, adGroupId * 10 + a, `Ad ${c}.${g}.${a}`), spend: "12.50" });
    }
  }
  return account;
}

/** The local stand-in for the ad network the bench's service reads (the settings go into its environment). */
export async function startBenchAdNetwork() {
  const fake = await startFakeAdnetReporting(TOKEN, benchAccount());
  return { env: { ADNET_API_URL: fake.baseUrl, ADNET_ORG_ID: String(ORG), ADNET_ACCESS_TOKEN: TOKEN }, close: fake.close };
}

/** A skewed pick (a few campaigns bring most users, as in a real account). */
const skewed = (count: number) => Math.min(count - 1, Math.floor(count * Math.random() ** 2));

/**
 * `users` search-ads attributed users of one project as the attribution route writes them: one
 * `UserPropertiesChanged` identity fact each, straight onto the INGEST stream, first seen over
 * the last 400 days (so about a tenth fall outside the 360-day window); a fifth of them paying
 * (a `UserRevenueSynced` fact), half of those subscribers past their trial.
 */
async function seedAttributedUsers(streams: Log, home: { teamId: string; projectId: string; appId: string }, users: number): Promise<void> {
  const now = Date.now();
  let next = 0;
  const lanes = Array.from({ length: IN_FLIGHT }, async () => {
    while (next < users) {
      const index = next++;
      const userId = `ads-user-${index}`;
      const c = skewed(CAMPAIGNS);
      const g = Math.floor(Math.random() * AD_GROUPS_PER_CAMPAIGN);
      const adGroupId = (1_000 + c) * 10 + g;
      const at = new Date(now - Math.floor(Math.random() * 400 * DAY_MS)).toISOString();
      const paying = index % 5 === 0;
      const base = { v: 1, team_id: home.teamId, project_id: home.projectId, app_id: home.appId, at, user_id: userId };
      const properties = {
        attribution_source: "adnet_search",
        adn_campaign_id: String(1_000 + c),
        adn_ad_group_id: String(adGroupId),
        adn_keyword_id: String(adGroupId * 100 + Math.floor(Math.random() * KEYWORDS_PER_AD_GROUP)),
        adn_ad_id: String(adGroupId * 10 + Math.floor(Math.random() * ADS_PER_AD_GROUP)),
        adn_claim_type: "Click",
        ...(paying ? { sp_subscriber: "true", sp_period_type: index % 10 === 0 ? "normal" : "trial" } : {}),
      };
      const subject = streams.names.identitySubject(home.projectId, userId);
      const change = { type: "UserPropertiesChanged", id: randomUUID(), ...base, set: properties, unset: [], source: "attribution", merged_at_seq: 0 };
      await append(streams, subject, JSON.stringify(change), { msgId: change.id });
      if (paying) {
        const revenue = { type: "UserRevenueSynced", id: randomUUID(), ...base, lifetime_revenue_usd_cents: 499 + (index % 7) * 1_000, synced_at: new Date(now).toISOString() };
        await append(streams, subject, JSON.stringify(revenue), { msgId: revenue.id });
      }
    }
  });
  await Promise.all(lanes);
}

async function appUsersAt(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<{ last_seq: string }>(
    `select c.last_seq from projection_checkpoints c
       join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
      where c.projection = 'app_users'`,
  );
  return Number(rows[0]?.last_seq ?? 0);
}

export type AdsBenchInput = { baseUrl: string; databaseUrl: string; streams: Log; token: string; teamId: string; users: number; log: (line: string) => void };

/**
 * The ads routes over `users` attributed users of one project: seeds them, runs adnet_sync
 * against the fake network, then times each route (sequential requests, as a dashboard asks).
 */
export async function runAdsBench(input: AdsBenchInput) {
  const { baseUrl, token } = input;
  const project = await call(baseUrl, "POST", "/v1/projects", { team_id: input.teamId, name: "Ads", slug: `ads-${Date.now()}` }, token);
  const app = await call(baseUrl, "POST", "/v1/apps", { project_id: project.id, name: "Ads", platform: "apple", bundle_id: `com.example.ads${Date.now()}` }, token);
  const db = new pg.Pool({ connectionString: input.databaseUrl, max: 2 });
  try {
    const started = performance.now();
    await seedAttributedUsers(input.streams, { teamId: input.teamId, projectId: project.id, appId: app.id }, input.users);
    const published = performance.now();
    const head = await streamHead(input.streams, "INGEST");
    await waitUntil("app_users to apply the attributed users", async () => (await appUsersAt(db)) >= head, 1_800_000, 500);
    const projected = performance.now();
    input.log(`ads: ${input.users} attributed users published in ${round((published - started) / 1000)} s, applied by app_users after ${round((projected - started) / 1000)} s`);

    const triggered = await call(baseUrl, "POST", `/v1/teams/${input.teamId}/jobs/trigger`, { job_type: "adnet_sync", project_id: project.id }, token);
    const run = await waitUntil(
      "adnet_sync to finish",
      async () => {
        const { job_run } = await call(baseUrl, "GET", `/v1/jobs/${triggered.job_run.id}`, undefined, token);
        return ["completed", "failed"].includes(job_run.status) ? job_run : undefined;
      },
      120_000,
      250,
    );
    if (run.status !== "completed") throw new Error(`adnet_sync failed: ${run.error}`);
    // Autovacuum vacuums and analyzes a table within about a minute of a bulk insert; the figures
    // are for that steady state (an index-only scan needs the visibility map it sets).
    const { rows: active } = await db.query<{ generation: number }>("select active_generation as generation from projection_generations where projection = 'app_users'");
    await db.query(`vacuum (analyze) rm_app_users_g${active[0]!.generation}.app_users`);
    // The app filter joins app_user_apps: without its statistics the planner takes a nested loop of 200k probes.
    await db.query(`vacuum (analyze) rm_app_users_g${active[0]!.generation}.app_user_apps`);

    const base = `/v1/projects/${project.id}/ads`;
    const top = await call(baseUrl, "GET", `${base}/campaigns?limit=1`, undefined, token);
    const campaignId = top.campaigns[0].id as string;
    const groups = await call(baseUrl, "GET", `${base}/campaigns/${campaignId}/ad-groups?limit=1`, undefined, token);
    const adGroupId = groups.ad_groups[0].id as string;
    const samples = Number(process.env.BENCH_ADS_SAMPLES ?? 100);
    const measure = (path: string) => measureQuery(baseUrl, [token], () => path, samples);
    const routes = {
      campaigns: await measure(`${base}/campaigns`),
      campaigns_of_app: await measure(`${base}/campaigns?app_id=${app.id}`),
      ad_groups: await measure(`${base}/campaigns/${campaignId}/ad-groups`),
      leaves: await measure(`${base}/campaigns/${campaignId}/ad-groups/${adGroupId}/leaves`),
      team_campaigns: await measure(`/v1/ads/campaigns?team_id=${input.teamId}`),
    };
    for (const [route, figures] of Object.entries(routes)) input.log(`ads ${route}: p50 ${figures.p50_ms} ms, p95 ${figures.p95_ms} ms (${figures.failed} failed)`);
    return {
      attributed_users: input.users,
      users_in_window: top.total_user_count as number,
      publish_seconds: round((published - started) / 1000),
      applied_seconds: round((projected - started) / 1000),
      routes,
    };
  } finally {
    await db.end();
  }
}
