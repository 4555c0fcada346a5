import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finishedRun, runJob, searchAdsProperties, setProperties, syncRevenue, type UserHome } from "../support/ads.ts";
import { appendImport } from "../support/analytics.ts";
import { ingestSettled } from "../support/app-users.ts";
import { createApp, projectWithApp } from "../support/catalog.ts";
import { anEvent } from "../support/events.ts";
import { adGroupMeta, adMeta, campaignMeta, keywordMeta, startFakeAdnetReporting, type FakeAdnetReporting } from "../support/fake-adnet-reporting.ts";
import { anError, type Client } from "../support/http.ts";
import { joinTeam } from "../support/membership.ts";
import { startWithOwner, stopTestService, testConfig, type TestService } from "../support/service.ts";
import { signIn, type SignedIn } from "../support/users.ts";

/**
 * The ads routes through HTTP on a known data set: users attributed through identity properties,
 * revenue through the provider's identity facts, names and spend from an adnet_sync against a
 * local fake of the ad network. Every AdsRow field, the window, the ranking, the limit, the
 * team-wide route, permissions and errors.
 */

const TOKEN = "ads-test-access-token";
const ORG = 40669820;

let service: TestService;
let http: Client;
let owner: SignedIn;
let adnet: FakeAdnetReporting;
let home: UserHome;
let android: UserHome & { clientKey: string };
let clientKey: string;
let otherProject: UserHome;

const REVENUE_SYNCED = new Date("2026-11-20T10:00:00.000Z");

beforeAll(async () => {
  adnet = await startFakeAdnetReporting(TOKEN, {
    orgId: ORG,
    currency: "USD",
    campaigns: [
      { metadata: campaignMeta(100, "Brand"), spend: "20.00" },
      { metadata: campaignMeta(200, "Generic", { campaignStatus: "PAUSED", displayStatus: "PAUSED" }), spend: "5.00" },
      { metadata: campaignMeta(300, "Unused", { deleted: true }), spend: "7.00" },
    ],
    adGroups: {
      "100": [
        { metadata: adGroupMeta(100, 110, "Exact"), spend: "12.00" },
        { metadata: adGroupMeta(100, 120, "Broad"), spend: "8.00" },
      ],
      "200": [{ metadata: adGroupMeta(200, 210, "Generic group"), spend: "5.00" }],
    },
    keywords: {
      "100": [
        { metadata: keywordMeta(110, 111, "habit tracker"), spend: "9.50" },
        { metadata: keywordMeta(120, 121, "habits"), spend: "8.00" },
      ],
      "200": [{ metadata: keywordMeta(210, 211, "tracker"), spend: "5.00" }],
    },
    ads: {
      "100": [
        { metadata: adMeta(100, 110, 112, "Default ad"), spend: "12.00" },
        { metadata: adMeta(100, 120, 122, "Broad ad"), spend: "8.00" },
      ],
      "200": [{ metadata: adMeta(200, 210, 212, "Generic ad"), spend: "5.00" }],
    },
  });
  ({ service, http, owner } = await startWithOwner(
    await testConfig({ ADNET_API_URL: adnet.baseUrl, ADNET_ORG_ID: String(ORG), ADNET_ACCESS_TOKEN: TOKEN, ADNET_API_TIMEOUT_MS: "2000" }),
  ));
  const created = await projectWithApp(http, owner.token, owner.teamId, { platform: "apple" });
  clientKey = created.clientKey;
  home = { teamId: owner.teamId, projectId: created.project.id, appId: created.app.id };
  const droid = await createApp(http, owner.token, home.projectId, { platform: "android", bundle_id: `com.example.droid${Date.now()}` });
  android = { ...home, appId: droid.id, clientKey: droid.client_secret };
  const other = await projectWithApp(http, owner.token, owner.teamId, { platform: "apple" });
  otherProject = { teamId: owner.teamId, projectId: other.project.id, appId: other.app.id };

  // u6 was first seen 400 days ago (an import of its history): outside the 360-day window.
  await appendImport(service, { id: home.appId, team_id: home.teamId, project_id: home.projectId, platform: "apple" }, randomUUID(), [
    anEvent({ user_id: "u6", timestamp: new Date(Date.now() - 400 * 86_400_000).toISOString() }),
  ]);
  await ingestSettled(service);

  const subscriber = { sp_subscriber: "true", sp_period_type: "normal" };
  const users: [string, UserHome & { clientKey?: string }, Record<string, string>, number][] = [
    ["u1", home, { ...searchAdsProperties({ campaign: "100", adGroup: "110", keyword: "111", ad: "112" }), ...subscriber }, 1000],
    ["u2", home, { ...searchAdsProperties({ campaign: "100", adGroup: "110", keyword: "111", ad: "112" }), sp_subscriber: "true", sp_period_type: "trial" }, 0],
    ["u3", home, { ...searchAdsProperties({ campaign: "100", adGroup: "120", keyword: "121", ad: "122" }), sp_subscriber: "false" }, 500],
    ["u4", home, { ...searchAdsProperties({ campaign: "200", adGroup: "210", keyword: "211", ad: "212" }), ...subscriber }, 1500],
    ["u5", android, searchAdsProperties({ campaign: "200", adGroup: "210", keyword: "211", ad: "212" }), 0],
    ["u6", home, { ...searchAdsProperties({ campaign: "100", adGroup: "110", keyword: "111", ad: "112" }), ...subscriber }, 9999],
    ["u7", home, { attribution_source: "none", adn_campaign_id: "100" }, 700],
    ["u8", home, searchAdsProperties({ campaign: "999" }), 0],
    ["u9", home, searchAdsProperties({ campaign: "50" }), 0],
  ];
  for (const [userId, where, properties, cents] of users) {
    await setProperties(http, where === android ? android.clientKey : clientKey, userId, properties);
    if (cents > 0) await syncRevenue(service, where, userId, cents, userId === "u4" ? REVENUE_SYNCED : new Date("2026-11-19T08:00:00.000Z"));
  }
  await setProperties(http, other.clientKey, "b1", searchAdsProperties({ campaign: "100", adGroup: "110" }));
  await syncRevenue(service, otherProject, "b1", 200, new Date("2026-11-18T00:00:00.000Z"));
  await ingestSettled(service);

  const run = await runJob(http, owner.token, owner.teamId, home.projectId, "adnet_sync");
  expect(run).toMatchObject({ status: "completed", result: { currency: "USD", campaigns: 3, ad_groups: 3, keywords: 3, ads: 3 } });
});
afterAll(async () => {
  await stopTestService(service);
  await adnet.close();
});

const row = (fields: Record<string, unknown>) => ({
  name: null,
  user_count: 1,
  paid_user_count: 0,
  retained_user_count: 0,
  total_revenue_usd: 0,
  arpu: 0,
  total_spend_usd: null,
  roas: null,
  start_date: null,
  status: null,
  ...fields,
});
const BRAND = row({ id: "100", name: "Brand", user_count: 3, paid_user_count: 2, retained_user_count: 1, total_revenue_usd: 15, arpu: 5, total_spend_usd: 20, roas: 0.75, start_date: "2026-01-15", status: "ENABLED" });
const GENERIC = row({ id: "200", name: "Generic", user_count: 2, paid_user_count: 1, retained_user_count: 1, total_revenue_usd: 15, arpu: 7.5, total_spend_usd: 5, roas: 3, start_date: "2026-01-15", status: "PAUSED" });
const base = () => `/v1/projects/${home.projectId}/ads`;

describe("GET /v1/projects/:projectId/ads/campaigns", () => {
  it("computes every AdsRow field, the totals and the sync times within the 360-day window", async () => {
    const response = await http.get(`${base()}/campaigns`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      attribution_source: "adnet_search",
      campaigns: [BRAND, GENERIC, row({ id: "50" }), row({ id: "999" })],
      total_user_count: 7,
      total_paid_user_count: 3,
      total_retained_user_count: 2,
      total_revenue_usd: 30,
      total_spend_usd: 25,
      window_days: 360,
      revenue_synced_at: REVENUE_SYNCED.toISOString(),
      currency_warning: null,
    });
    expect(Object.keys(response.body.campaigns[0]).sort()).toEqual(Object.keys(BRAND).sort());
    expect(Date.parse(response.body.ad_metrics_synced_at)).toBeLessThanOrEqual(Date.now());
  });

  it("ranks by revenue, then users, then id, and limits the rows but not the totals", async () => {
    const response = await http.get(`${base()}/campaigns?limit=1`, { token: owner.token });
    expect(response.body.campaigns).toEqual([BRAND]);
    expect(response.body.total_user_count).toBe(7);
    expect((await http.get(`${base()}/campaigns?limit=0`, { token: owner.token })).status).toBe(400);
    expect((await http.get(`${base()}/campaigns?limit=ten`, { token: owner.token })).body).toEqual(anError);
  });

  it("narrows to the users seen in app_id", async () => {
    const response = await http.get(`${base()}/campaigns?app_id=${android.appId}`, { token: owner.token });
    expect(response.body.campaigns).toEqual([{ ...GENERIC, user_count: 1, paid_user_count: 0, retained_user_count: 0, total_revenue_usd: 0, arpu: 0, roas: 0 }]);
    expect(response.body.total_user_count).toBe(1);
    // The only app of a project: every user of the project, without the join.
    const only = await http.get(`/v1/projects/${otherProject.projectId}/ads/campaigns?app_id=${otherProject.appId}`, { token: owner.token });
    expect(only.body.campaigns).toEqual([row({ id: "100", paid_user_count: 1, total_revenue_usd: 2, arpu: 2 })]);
  });

  it("refuses other attribution sources, foreign apps and unknown projects", async () => {
    expect((await http.get(`${base()}/campaigns?attribution_source=none`, { token: owner.token })).status).toBe(400);
    expect((await http.get(`${base()}/campaigns?app_id=${otherProject.appId}`, { token: owner.token })).status).toBe(404);
    expect((await http.get(`/v1/projects/${randomUUID()}/ads/campaigns`, { token: owner.token })).status).toBe(404);
    expect((await http.get(`/v1/projects/not-a-uuid/ads/campaigns`, { token: owner.token })).status).toBe(400);
  });
});

describe("GET …/campaigns/:campaignId/ad-groups and …/leaves", () => {
  it("breaks a campaign down by ad group", async () => {
    const response = await http.get(`${base()}/campaigns/100/ad-groups`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      attribution_source: "adnet_search",
      campaign_id: "100",
      campaign_name: "Brand",
      ad_groups: [
        row({ id: "110", name: "Exact", user_count: 2, paid_user_count: 1, retained_user_count: 1, total_revenue_usd: 10, arpu: 5, total_spend_usd: 12, roas: 0.8333, start_date: "2026-02-01", status: "ENABLED" }),
        row({ id: "120", name: "Broad", paid_user_count: 1, total_revenue_usd: 5, arpu: 5, total_spend_usd: 8, roas: 0.625, start_date: "2026-02-01", status: "ENABLED" }),
      ],
      total_spend_usd: 20,
      window_days: 360,
      currency_warning: null,
    });
  });

  it("breaks an ad group down by keyword and by ad", async () => {
    const response = await http.get(`${base()}/campaigns/100/ad-groups/110/leaves`, { token: owner.token });
    expect(response.status).toBe(200);
    const revenue = { user_count: 2, paid_user_count: 1, retained_user_count: 1, total_revenue_usd: 10, arpu: 5 };
    expect(response.body).toEqual({
      attribution_source: "adnet_search",
      campaign_id: "100",
      campaign_name: "Brand",
      ad_group_id: "110",
      ad_group_name: "Exact",
      keywords: [row({ id: "111", name: "habit tracker", ...revenue, total_spend_usd: 9.5, roas: 1.0526, status: "ACTIVE" })],
      ads: [row({ id: "112", name: "Default ad", ...revenue, total_spend_usd: 12, roas: 0.8333, start_date: "2026-02-03", status: "ENABLED" })],
      window_days: 360,
    });
  });

  it("answers an unknown campaign with no rows, and refuses malformed ids", async () => {
    const response = await http.get(`${base()}/campaigns/12345/ad-groups`, { token: owner.token });
    expect(response.body).toMatchObject({ campaign_id: "12345", campaign_name: null, ad_groups: [], total_spend_usd: null });
    expect((await http.get(`${base()}/campaigns/a.b/ad-groups`, { token: owner.token })).status).toBe(400);
  });
});

describe("GET /v1/ads/campaigns", () => {
  it("ranks campaigns of every project of the caller's teams, each with its project's spend", async () => {
    const response = await http.get("/v1/ads/campaigns", { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body.campaigns).toEqual([
      { ...BRAND, project_id: home.projectId },
      { ...GENERIC, project_id: home.projectId },
      { ...row({ id: "100", total_revenue_usd: 2, paid_user_count: 1, arpu: 2 }), project_id: otherProject.projectId },
      { ...row({ id: "50" }), project_id: home.projectId },
      { ...row({ id: "999" }), project_id: home.projectId },
    ]);
    expect(response.body).toMatchObject({ total_user_count: 8, total_revenue_usd: 32, total_spend_usd: 25, revenue_synced_at: REVENUE_SYNCED.toISOString() });
  });

  it("narrows to team_id, and a team the caller cannot see gives nothing", async () => {
    expect((await http.get(`/v1/ads/campaigns?team_id=${owner.teamId}&limit=2`, { token: owner.token })).body.campaigns).toHaveLength(2);
    const stranger = await signIn(http, service.outbox);
    const foreign = await http.get(`/v1/ads/campaigns?team_id=${owner.teamId}`, { token: stranger.token });
    expect(foreign.body).toMatchObject({ campaigns: [], total_user_count: 0, total_revenue_usd: 0, total_spend_usd: null, ad_metrics_synced_at: null });
  });
});

describe("permissions", () => {
  const agentKey = async (permissions: string[]) =>
    (await http.post("/v1/auth/keys", { name: "ads", key_type: "agent", team_id: owner.teamId, permissions }, { token: owner.token })).body.api_key.secret as string;

  it("lets agent keys read with users:read only", async () => {
    const reader = await agentKey(["users:read"]);
    expect((await http.get(`${base()}/campaigns`, { token: reader })).status).toBe(200);
    expect((await http.get("/v1/ads/campaigns", { token: reader })).status).toBe(200);
    const without = await agentKey(["apps:read", "users:write"]);
    expect((await http.get(`${base()}/campaigns`, { token: without })).status).toBe(403);
    expect((await http.get(`${base()}/campaigns/100/ad-groups/110/leaves`, { token: without })).status).toBe(403);
    expect((await http.post(`${base()}/sync`, undefined, { token: reader })).status).toBe(403);
    expect((await http.get(`${base()}/campaigns`, { token: clientKey })).status).toBe(403);
  });

  it("lets members read but only admins sync; outsiders see no project", async () => {
    const member = await joinTeam(http, service.outbox, { teamId: owner.teamId, inviter: owner, role: "member" });
    expect((await http.get(`${base()}/campaigns`, { token: member.token })).status).toBe(200);
    const refused = await http.post(`${base()}/sync`, undefined, { token: member.token });
    expect(refused).toMatchObject({ status: 403, body: anError });
    const stranger = await signIn(http, service.outbox);
    expect((await http.get(`${base()}/campaigns`, { token: stranger.token })).status).toBe(404);
    expect((await http.post(`${base()}/sync`, undefined, { token: stranger.token })).status).toBe(404);
    expect((await http.get(`${base()}/campaigns`)).status).toBe(401);
  });
});

describe("POST /v1/projects/:projectId/ads/sync", () => {
  it("starts only adnet_sync without a subscription provider integration, answering a run already active instead of a second one", async () => {
    const response = await http.post(`${base()}/sync`, undefined, { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ syncing: true, revenuecat_job_run_id: null, adnet_job_run_id: expect.any(String) });
    const again = await http.post(`${base()}/sync`, undefined, { token: owner.token });
    expect(again.status).toBe(200);
    const adnetRun = await finishedRun(http, owner.token, response.body.adnet_job_run_id);
    expect(adnetRun).toMatchObject({ job_type: "adnet_sync", status: "completed", triggered_by: `manual:user:${owner.userId}` });
    // Asked again at once, the first run was pending or running: the same run, unless it had already finished.
    if (again.body.adnet_job_run_id !== response.body.adnet_job_run_id) expect(Date.parse(adnetRun.completed_at)).toBeLessThanOrEqual(Date.now());
  });

  it("starts subprov_sync too once the project has an enabled integration", async () => {
    const integration = await http.post(
      `/v1/projects/${otherProject.projectId}/integrations`,
      { provider: "subprov", config: { api_key: "sk_ads_test_key", project_id: "proj1ads" } },
      { token: owner.token },
    );
    expect(integration.status).toBe(201);
    const response = await http.post(`/v1/projects/${otherProject.projectId}/ads/sync`, undefined, { token: owner.token });
    expect(response.status).toBe(200);
    const revenueRun = (await http.get(`/v1/jobs/${response.body.revenuecat_job_run_id}`, { token: owner.token })).body.job_run;
    expect(revenueRun).toMatchObject({ job_type: "subprov_sync", project_id: otherProject.projectId });
    expect((await finishedRun(http, owner.token, response.body.adnet_job_run_id)).job_type).toBe("adnet_sync");
  });
});
