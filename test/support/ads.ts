import { randomUUID } from "node:crypto";
import { append } from "../../streams/append.ts";
import type { Client } from "./http.ts";
import { waitUntil } from "./processes.ts";
import type { TestService } from "./service.ts";

/** Where a test's users live: the app whose key wrote them, in its project and team. */
export type UserHome = { teamId: string; projectId: string; appId: string };

/** The attribution properties a search-ads install gets (SPEC, Identity attribution). */
export const searchAdsProperties = (ids: { campaign: string; adGroup?: string; keyword?: string; ad?: string }) => ({
  attribution_source: "adnet_search",
  adn_campaign_id: ids.campaign,
  ...(ids.adGroup === undefined ? {} : { adn_ad_group_id: ids.adGroup }),
  ...(ids.keyword === undefined ? {} : { adn_keyword_id: ids.keyword }),
  ...(ids.ad === undefined ? {} : { adn_ad_id: ids.ad }),
  adn_claim_type: "Click",
});

/** POST /v1/identity/properties with a client key. @throws when the API refuses */
export async function setProperties(http: Client, clientKey: string, userId: string, properties: Record<string, string>): Promise<void> {
  const answer = await http.post("/v1/identity/properties", { user_id: userId, properties }, { token: clientKey });
  if (answer.status !== 200) throw new Error(`properties answered ${answer.status}: ${JSON.stringify(answer.body)}`);
}

/**
 * Records a user's lifetime revenue the way the subscription provider's sync does: a
 * `UserRevenueSynced` identity fact on the user's INGEST subject (domain/identity/events.ts).
 */
export async function syncRevenue(service: TestService, home: UserHome, userId: string, cents: number, syncedAt = new Date()): Promise<void> {
  const fact = {
    type: "UserRevenueSynced",
    v: 1,
    id: randomUUID(),
    team_id: home.teamId,
    project_id: home.projectId,
    app_id: home.appId,
    at: new Date().toISOString(),
    user_id: userId,
    lifetime_revenue_usd_cents: cents,
    synced_at: syncedAt.toISOString(),
  };
  await append(service.log, service.log.names.identitySubject(home.projectId, userId), JSON.stringify(fact), { msgId: fact.id });
}

/** Polls GET /v1/jobs/:runId until the run completed, failed or was cancelled. */
export const finishedRun = (http: Client, token: string, runId: string, timeoutMs = 30_000): Promise<any> =>
  waitUntil(
    `job run ${runId} to finish`,
    async () => {
      const run = (await http.get(`/v1/jobs/${runId}`, { token })).body.job_run;
      return ["completed", "failed", "cancelled"].includes(run?.status) ? run : undefined;
    },
    timeoutMs,
    100,
  );

/** Triggers `jobType` for a project through the jobs route and waits for the run to finish. */
export async function runJob(http: Client, token: string, teamId: string, projectId: string, jobType: string, timeoutMs?: number): Promise<any> {
  const triggered = await http.post(`/v1/teams/${teamId}/jobs/trigger`, { job_type: jobType, project_id: projectId }, { token });
  if (triggered.status !== 201) throw new Error(`trigger answered ${triggered.status}: ${JSON.stringify(triggered.body)}`);
  return finishedRun(http, token, triggered.body.job_run.id, timeoutMs);
}
