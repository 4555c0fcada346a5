import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { PROVIDERS, providerOf, SUBPROV } from "../../../domain/integrations/providers.ts";
import { newId, randomToken } from "../../../domain/shared/ids.ts";
import { activeIntegrations } from "../../../projections/integrations/queries.ts";
import { runIntegrationCommand } from "../../commands/integration-command.ts";
import { actorOf, team } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { existingIntegration, READ, READ_SECRET, toIntegration, webhookSetup, WRITE } from "../integrations/access.ts";
import { accessibleProject } from "../resource-access.ts";
import { deletedBody, errorBody, projectParams, TAGS } from "../schemas/common.ts";
import {
  createBody,
  createdIntegrationBody,
  exampleIntegration,
  exampleWebhookSetup,
  integrationBody,
  integrationsBody,
  patchBody,
  providerParams,
  providersBody,
  webhookSetupEnvelope,
} from "../schemas/integrations.ts";

const tags = [TAGS.integrations];

/** The provider registry, list, get, create (or restore), PATCH, DELETE and the webhook setup (register with prefix /v1/projects/:projectId/integrations). */
export function integrationRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/providers",
      {
        schema: { summary: "List integration providers and their config fields", tags, params: projectParams, response: { 200: providersBody } },
        config: { access: team(READ) },
      },
      async (request) => {
        await accessibleProject(deps, request.caller, request.params.projectId, READ);
        return { providers: Object.values(PROVIDERS) };
      },
    );

    app.get(
      "/",
      {
        schema: { summary: "List a project's active integrations", tags, params: projectParams, response: { 200: integrationsBody }, examples: { 200: { integrations: [exampleIntegration] } } },
        config: { access: team(READ) },
      },
      async (request) => {
        const project = await accessibleProject(deps, request.caller, request.params.projectId, READ);
        return { integrations: (await activeIntegrations(deps.pool, project.id)).map(toIntegration) };
      },
    );

    app.post(
      "/",
      {
        schema: {
          summary: "Create an integration",
          description:
            "Config keys must be the provider's configFields, all values strings. The answer carries `webhook_setup` with the server-generated " +
            "webhook secret. 409 while an active integration of the provider exists; a soft-deleted one is restored (same id) with the new config and a new secret. Audited.",
          tags,
          params: projectParams,
          body: createBody,
          response: { 201: createdIntegrationBody, 400: errorBody, 409: errorBody },
          examples: { body: { provider: "subprov", config: { api_key: "sk_live_...", project_id: "proj1ab2c3d4" } }, 201: { ...exampleIntegration, webhook_setup: exampleWebhookSetup } },
        },
        config: { access: team(WRITE) },
      },
      async (request, reply) => {
        const project = await accessibleProject(deps, request.caller, request.params.projectId, WRITE);
        const provider = providerOf(request.body.provider);
        await runIntegrationCommand(
          deps,
          {
            type: "CreateIntegration",
            teamId: project.team_id,
            projectId: project.id,
            provider: provider.id,
            config: request.body.config,
            newId: newId(),
            secret: randomToken(24),
            at: new Date().toISOString(),
          },
          actorOf(request.caller),
        );
        const row = await existingIntegration(deps, project.id, provider.id);
        return reply.code(201).send({ ...toIntegration(row), webhook_setup: await webhookSetup(deps, row) });
      },
    );

    app.get(
      `/${SUBPROV}/webhook-setup`,
      {
        schema: {
          summary: "Show the subscription provider's webhook setup",
          description: "The URL and Authorization header to configure at the provider. Reading it does not rotate the secret.",
          tags,
          params: projectParams,
          response: { 200: webhookSetupEnvelope },
          examples: { 200: { webhook_setup: exampleWebhookSetup } },
        },
        config: { access: team(READ_SECRET) },
      },
      async (request) => {
        const project = await accessibleProject(deps, request.caller, request.params.projectId, READ_SECRET);
        return { webhook_setup: await webhookSetup(deps, await existingIntegration(deps, project.id, SUBPROV)) };
      },
    );

    app.get(
      "/:provider",
      {
        schema: { summary: "Get an integration", tags, params: providerParams, response: { 200: integrationBody }, examples: { 200: exampleIntegration } },
        config: { access: team(READ) },
      },
      async (request) => {
        const project = await accessibleProject(deps, request.caller, request.params.projectId, READ);
        return toIntegration(await existingIntegration(deps, project.id, providerOf(request.params.provider).id));
      },
    );

    app.patch(
      "/:provider",
      {
        schema: {
          summary: "Change an integration's config or enabled flag",
          description: "`config` is merged over the stored one and the merge is validated whole. Audited (config keys only, never values).",
          tags,
          params: providerParams,
          body: patchBody,
          response: { 200: integrationBody, 400: errorBody },
          examples: { body: { enabled: false }, 200: { ...exampleIntegration, enabled: false } },
        },
        config: { access: team(WRITE) },
      },
      async (request) => {
        const project = await accessibleProject(deps, request.caller, request.params.projectId, WRITE);
        const provider = providerOf(request.params.provider);
        const { config, enabled } = request.body;
        await runIntegrationCommand(deps, { type: "UpdateIntegration", projectId: project.id, provider: provider.id, config, enabled, at: new Date().toISOString() }, actorOf(request.caller));
        return toIntegration(await existingIntegration(deps, project.id, provider.id));
      },
    );

    app.delete(
      "/:provider",
      {
        schema: { summary: "Delete an integration", description: "Soft: creating it again restores it. Audited.", tags, params: providerParams, response: { 200: deletedBody }, examples: { 200: { deleted: true } } },
        config: { access: team(WRITE) },
      },
      async (request) => {
        const project = await accessibleProject(deps, request.caller, request.params.projectId, WRITE);
        const provider = providerOf(request.params.provider);
        await runIntegrationCommand(deps, { type: "DeleteIntegration", projectId: project.id, provider: provider.id, at: new Date().toISOString() }, actorOf(request.caller));
        return { deleted: true as const };
      },
    );
  };
}
