import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { SUBPROV } from "../../../domain/integrations/providers.ts";
import { notFound, upstreamFailed } from "../../../domain/shared/errors.ts";
import { identifiedUserCount } from "../../../projections/app-users/subprov-queries.ts";
import { ProviderError } from "../../integrations/provider-http.ts";
import { syncUser, type UserSync } from "../../integrations/subprov-sync.ts";
import { team } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { enabledIntegration, WRITE } from "../integrations/access.ts";
import { accessibleProject } from "../resource-access.ts";
import { errorBody, projectParams, TAGS } from "../schemas/common.ts";
import { syncStartedBody, syncUserParams, userSyncedBody } from "../schemas/integrations.ts";
import { startJob } from "../start-job.ts";

const tags = [TAGS.integrations];


/** `POST /subprov/sync` and `POST /subprov/sync/:userId` (register with prefix /v1/projects/:projectId/integrations). */
export function subprovSyncRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      `/${SUBPROV}/sync`,
      {
        schema: {
          summary: "Sync every identified user from the subscription provider",
          description:
            "Starts a `subprov_sync` job run over the project's non-anonymous users (follow it at /v1/jobs/:runId). " +
            "Without such users nothing starts and the answer is `{synced: 0, total: 0}`. 404 when not configured or disabled; 409 while a run is active.",
          tags,
          params: projectParams,
          response: { 200: syncStartedBody, 409: errorBody },
          examples: { 200: { syncing: true, total: 1280, job_run_id: "1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a" } },
        },
        config: { access: team(WRITE) },
      },
      async (request) => {
        const project = await accessibleProject(deps, request.caller, request.params.projectId, WRITE);
        await enabledIntegration(deps, project.id, SUBPROV);
        const total = await identifiedUserCount(deps.pool, project.id);
        if (total === 0) return { synced: 0 as const, total: 0 as const };
        const runId = await startJob(deps, request.caller, { teamId: project.team_id, projectId: project.id, jobType: "subprov_sync" });
        return { syncing: true as const, total, job_run_id: runId };
      },
    );

    app.post(
      `/${SUBPROV}/sync/:userId`,
      {
        schema: {
          summary: "Sync one user from the subscription provider now",
          description:
            "Reads the subscriber and its subscriptions and writes the sp_* properties and the lifetime revenue. When the subscriptions cannot be read, " +
            "the entitlements' properties are still written. 404 when the provider does not know the user, or not configured or disabled; 502 when the provider fails.",
          tags,
          params: syncUserParams,
          response: { 200: userSyncedBody, 502: errorBody },
          examples: { 200: { updated: true, properties: { sp_subscriber: "true", sp_status: "active", sp_will_renew: "true", sp_product: "pro_monthly" } } },
        },
        config: { access: team(WRITE) },
      },
      async (request) => {
        const project = await accessibleProject(deps, request.caller, request.params.projectId, WRITE);
        const integration = await enabledIntegration(deps, project.id, SUBPROV);
        let outcome: UserSync;
        try {
          outcome = await syncUser(deps, deps.config.subprov, integration, request.params.userId);
        } catch (error) {
          // The provider's error names it and its status, never the key or the path.
          if (error instanceof ProviderError) throw upstreamFailed(error.message);
          throw error;
        }
        if (outcome.kind === "unknown") throw notFound("subscriber (unknown at the subscription provider)");
        return { updated: outcome.updated, properties: outcome.properties };
      },
    );
  };
}
