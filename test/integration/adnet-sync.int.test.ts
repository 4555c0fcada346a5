import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { replay } from "../../projections/_runtime/replay.ts";
import { projectionNamed } from "../../projections/registry.ts";
import { ADNET_SYNC_PATTERN, adnetSyncSchedule } from "../../apps/worker/jobs/adnet-sync-schedule.ts";
import { finishedRun, runJob, searchAdsProperties, setProperties, syncRevenue } from "../support/ads.ts";
import { ingestSettled } from "../support/app-users.ts";
import { projectWithApp } from "../support/catalog.ts";
import { waitUntil } from "../support/processes.ts";
import { replayDeps } from "../support/replay.ts";
import { adGroupMeta, adMeta, campaignMeta, keywordMeta, startFakeAdnetReporting, type FakeAccount, type FakeAdnetReporting } from "../support/fake-adnet-reporting.ts";
import type { Client } from "../support/http.ts";
import { startWithOwner, stopTestService, testConfig, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * The adnet_sync job against a local fake of the ad network's Campaign Management API: the calls
 * it makes (credentials, report bodies, pagination), retries of 429 and 5xx, malformed bodies and
 * slow answers, and a non-USD account, each seen through the jobs and ads routes.
 */

const TOKEN = "sync-test-secret-token-0123";
const ORG = 7070707;
const TIMEOUT_MS = 500;

let service: TestService;
let http: Client;
let owner: SignedIn;
let adnet: FakeAdnetReporting;
let projectId: string;

const manyKeywords = Array.from({ length: 1_001 }, (_, index) => ({ metadata: keywordMeta(110, 5_000 + index, `keyword ${index}`), spend: "0.10" }));
const account = (fields: Partial<FakeAccount> = {}): FakeAccount => ({
  orgId: ORG,
  currency: "USD",
  campaigns: [
    { metadata: campaignMeta(100, "Brand"), spend: "40.00" },
    { metadata: campaignMeta(300, "Seasonal"), spend: "2.00" },
  ],
  adGroups: { "100": [{ metadata: adGroupMeta(100, 110, "Exact"), spend: "40.00" }] },
  keywords: { "100": manyKeywords },
  ads: { "100": [{ metadata: adMeta(100, 110, 112, "Default ad"), spend: "40.00" }] },
  ...fields,
});

beforeAll(async () => {
  adnet = await startFakeAdnetReporting(TOKEN, account());
  ({ service, http, owner } = await startWithOwner(
    await testConfig({ ADNET_API_URL: adnet.baseUrl, ADNET_ORG_ID: String(ORG), ADNET_ACCESS_TOKEN: TOKEN, ADNET_API_TIMEOUT_MS: String(TIMEOUT_MS) }),
  ));
  const created = await projectWithApp(http, owner.token, owner.teamId, { platform: "apple" });
  projectId = created.project.id;
  const home = { teamId: owner.teamId, projectId, appId: created.app.id };
  await setProperties(http, created.clientKey, "buyer", searchAdsProperties({ campaign: "100", adGroup: "110", keyword: "5000", ad: "112" }));
  await setProperties(http, created.clientKey, "seasonal", searchAdsProperties({ campaign: "300" }));
  await syncRevenue(service, home, "buyer", 5_000);
  await ingestSettled(service);
});
afterAll(async () => {
  await stopTestService(service);
  await adnet.close();
});

const sync = () => runJob(http, owner.token, owner.teamId, projectId, "adnet_sync", 40_000);
const callsSince = (from: number) => adnet.received.slice(from);
const campaigns = async () => (await http.get(`/v1/projects/${projectId}/ads/campaigns`, { token: owner.token })).body;

describe("a pull", () => {
  it("reads the ACLs and every report page by page with the account's credentials", async () => {
    const from = adnet.received.length;
    const run = await sync();
    expect(run).toMatchObject({ status: "completed", result: { currency: "USD", currency_warning: null, campaigns: 2, ad_groups: 1, keywords: 1_001, ads: 1 } });
    const calls = callsSince(from);
    expect(calls.map((call) => `${call.method} ${call.path} ${call.body?.selector?.pagination?.offset ?? ""}`.trim())).toEqual([
      "GET /api/v5/acls",
      "POST /api/v5/reports/campaigns 0",
      "POST /api/v5/reports/campaigns/100/adgroups 0",
      "POST /api/v5/reports/campaigns/100/keywords 0",
      "POST /api/v5/reports/campaigns/100/keywords 1000",
      "POST /api/v5/reports/campaigns/100/ads 0",
      "POST /api/v5/reports/campaigns/300/adgroups 0",
      "POST /api/v5/reports/campaigns/300/keywords 0",
      "POST /api/v5/reports/campaigns/300/ads 0",
    ]);
    for (const call of calls) expect(call).toMatchObject({ authorization: `Bearer ${TOKEN}`, context: `orgId=${ORG}` });
    const report = calls[1]!.body;
    expect(report).toMatchObject({ timeZone: "UTC", returnRecordsWithNoMetrics: true, returnRowTotals: true, selector: { pagination: { offset: 0, limit: 1000 } } });
    expect((Date.parse(report.endTime) - Date.parse(report.startTime)) / 86_400_000).toBe(359);
    const answer = await campaigns();
    expect(answer.campaigns[0]).toMatchObject({ id: "100", name: "Brand", total_revenue_usd: 50, total_spend_usd: 40, roas: 1.25 });
    const leaves = (await http.get(`/v1/projects/${projectId}/ads/campaigns/100/ad-groups/110/leaves`, { token: owner.token })).body;
    expect(leaves.keywords).toEqual([expect.objectContaining({ id: "5000", name: "keyword 0", total_spend_usd: 0.1, status: "ACTIVE" })]);
  });

  it("drops the entities the network no longer reports once a pull completes", async () => {
    adnet.setAccount(account({ campaigns: [{ metadata: campaignMeta(100, "Brand"), spend: "40.00" }] }));
    try {
      expect((await sync()).status).toBe("completed");
      const seasonal = (await campaigns()).campaigns.find((row: any) => row.id === "300");
      expect(seasonal).toMatchObject({ name: null, status: null, total_spend_usd: null });
    } finally {
      adnet.setAccount(account());
    }
  });
});

describe("failures", () => {
  it("retries 429 and 5xx answers with backoff, then completes", async () => {
    adnet.fail({ path: /acls$/, status: 429, headers: { "retry-after": "1" } }, { path: /reports\/campaigns$/, status: 503 }, { path: /adgroups$/, status: 500 });
    const from = adnet.received.length;
    const run = await sync();
    expect(run.status).toBe("completed");
    const paths = callsSince(from).map((call) => call.path);
    expect(paths.filter((path) => path === "/api/v5/acls")).toHaveLength(2);
    expect(paths.filter((path) => path === "/api/v5/reports/campaigns")).toHaveLength(2);
    expect(paths.filter((path) => path === "/api/v5/reports/campaigns/100/adgroups")).toHaveLength(2);
  });

  it("fails naming the provider on a body that is not JSON, without retrying, and keeps the last pull", async () => {
    const before = (await campaigns()).ad_metrics_synced_at;
    adnet.fail({ path: /reports\/campaigns$/, status: 200, body: "<html>maintenance</html>" });
    const from = adnet.received.length;
    const run = await sync();
    expect(run.status).toBe("failed");
    expect(run.error).toContain("ad network (adnet) reporting");
    expect(run.error).toContain("not JSON");
    expect(callsSince(from).filter((call) => call.path === "/api/v5/reports/campaigns")).toHaveLength(1);
    expect((await campaigns()).ad_metrics_synced_at).toBe(before);
  });

  it("fails on a report in an unexpected shape", async () => {
    adnet.fail({ path: /reports\/campaigns$/, status: 200, body: JSON.stringify({ data: { reportingDataResponse: { row: [{ metadata: { campaignName: "no id" } }] } } }) });
    const run = await sync();
    expect(run).toMatchObject({ status: "failed", error: expect.stringContaining("unexpected shape") });
  });

  it("gives up after three answers slower than the timeout, and never writes the token in the error", async () => {
    adnet.fail(...Array.from({ length: 3 }, () => ({ path: /acls$/, delayMs: TIMEOUT_MS * 3, body: "{}" })));
    const from = adnet.received.length;
    const run = await sync();
    expect(run.status).toBe("failed");
    expect(run.error).toContain(`no answer within ${TIMEOUT_MS} ms`);
    expect(run.error).not.toContain(TOKEN);
    expect(callsSince(from).filter((call) => call.path === "/api/v5/acls")).toHaveLength(3);
  });

  it("does not retry a refused credential", async () => {
    adnet.fail({ path: /acls$/, status: 401, body: "{}" });
    const from = adnet.received.length;
    const run = await sync();
    expect(run).toMatchObject({ status: "failed", error: expect.stringContaining("HTTP 401") });
    expect(callsSince(from)).toHaveLength(1);
  });
});

describe("a non-USD account", () => {
  it("sets currency_warning and leaves spend and ROAS null until the account is in USD again", async () => {
    adnet.setAccount(account({ currency: "EUR" }));
    try {
      const run = await sync();
      expect(run).toMatchObject({ status: "completed", result: { currency: "EUR", currency_warning: "EUR" } });
      const answer = await campaigns();
      expect(answer).toMatchObject({ currency_warning: "EUR", total_spend_usd: null, total_revenue_usd: 50 });
      expect(answer.campaigns[0]).toMatchObject({ id: "100", name: "Brand", total_spend_usd: null, roas: null, total_revenue_usd: 50 });
      const groups = (await http.get(`/v1/projects/${projectId}/ads/campaigns/100/ad-groups`, { token: owner.token })).body;
      expect(groups).toMatchObject({ currency_warning: "EUR", total_spend_usd: null, ad_groups: [expect.objectContaining({ total_spend_usd: null, roas: null })] });
    } finally {
      adnet.setAccount(account());
    }
    expect((await sync()).status).toBe("completed");
    expect(await campaigns()).toMatchObject({ currency_warning: null, total_spend_usd: 42 });
  });
});

describe("replay", () => {
  it("rebuilds the ads read model from the pulls' facts, row for row", async () => {
    const rows = () =>
      service.pool.any(sql.type(z.object({ row: z.string() }))`
        select concat_ws('|', project_id, level, id, campaign_id, ad_group_id, name, status, start_date, spend, sync_id) as row
          from ad_entities order by project_id, level, id`);
    const accounts = () => service.pool.any(sql.type(z.object({ row: z.string() }))`select concat_ws('|', project_id, currency, synced_at, sync_id) as row from ad_accounts`);
    const [entitiesBefore, accountsBefore] = [await rows(), await accounts()];
    expect(entitiesBefore.length).toBeGreaterThan(1_000);
    await replay(replayDeps(service), projectionNamed("ads"));
    expect(await rows()).toEqual(entitiesBefore);
    expect(await accounts()).toEqual(accountsBefore);
    expect(await campaigns()).toMatchObject({ currency_warning: null, total_spend_usd: 42 });
  });
});

describe("the daily schedule", () => {
  it("triggers adnet_sync at 04:45 UTC for projects with attributed users, once per firing, and only with an account", async () => {
    expect(ADNET_SYNC_PATTERN).toBe("45 4 * * *");
    expect(adnetSyncSchedule(service.log, service.pool, false)).toEqual([]);
    const [schedule] = adnetSyncSchedule(service.log, service.pool, true);
    // Two workers firing together append one trigger.
    await Promise.all([schedule!.run(), schedule!.run()]);
    const scheduledRuns = async () =>
      (await http.get(`/v1/teams/${owner.teamId}/jobs?job_type=adnet_sync&project_id=${projectId}`, { token: owner.token })).body.job_runs.filter(
        (run: any) => run.triggered_by === "schedule",
      );
    await waitUntil("the scheduled run to be listed", async () => (await scheduledRuns()).length > 0);
    const scheduled = await scheduledRuns();
    expect(scheduled).toHaveLength(1);
    expect((await finishedRun(http, owner.token, scheduled[0].id)).status).toBe("completed");
  });
});
