import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { funnelsDecider, type FunnelCommand, type TeamFunnels } from "../../../domain/definitions/decider.ts";
import { MAX_FIELD_CHARS } from "../../../domain/ingest/rules.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { funnelById, funnelBySlug, funnelsOfProject, funnelsOfTeams, teamFunnels, type FunnelRow } from "../../../projections/directory/definition-queries.ts";
import { definitionParams } from "../analytics/params.ts";
import { team, type Rule } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { funnelBody } from "../schemas/definitions.ts";
import { chars, definitionSlug } from "../validation.ts";
import { conflictBody, definitionWrites, projectDefinitionRoutes, projectParams, requireAField, teamDefinitionRoutes, type DefinitionKind } from "./definition-routes.ts";

export const FUNNELS_READ: Rule = { permission: "funnels:read", role: "member" };
const FUNNELS_WRITE: Rule = { permission: "funnels:write", role: "admin" };

const name = z.string().trim().min(1).max(100);
const description = z.string().max(2_000).nullable();
// Step and screen names of funnel events are up to 255 characters (domain/funnels/derive.ts).
const filterValue = chars(MAX_FIELD_CHARS).optional();
const steps = z
  .array(
    z.object({
      name,
      event_filter: z
        .object({ step_name: filterValue, screen_name: filterValue })
        .refine((filter) => filter.step_name !== undefined || filter.screen_name !== undefined, "needs step_name or screen_name"),
    }),
  )
  .min(1, "a funnel has 1 to 20 steps")
  .max(20, "a funnel has 1 to 20 steps")
  .describe("Each step matches events of the message `step:<step_name>`, of the screen `screen_name`, or both");

const createBody = z.object({ name, slug: definitionSlug, description: description.optional(), steps });
const patchBody = z.object({ name: name.optional(), description: description.optional(), steps: steps.optional() });

const funnels: DefinitionKind<FunnelRow, TeamFunnels, FunnelCommand> = {
  noun: "funnel",
  plural: "funnels",
  read: FUNNELS_READ,
  write: FUNNELS_WRITE,
  body: funnelBody,
  ofProject: funnelsOfProject,
  ofTeams: funnelsOfTeams,
  bySlug: funnelBySlug,
  byId: funnelById,
  decider: funnelsDecider,
  state: teamFunnels,
  remove: (ref) => ({ type: "DeleteFunnel", ...ref }),
};

const tags = ["funnels"];
const exampleSteps = [
  { name: "Opened the shop", event_filter: { screen_name: "Shop" } },
  { name: "Added to cart", event_filter: { step_name: "add_to_cart" } },
  { name: "Paid", event_filter: { step_name: "paid" } },
];

/** /v1/projects/:projectId/funnels */
export function projectFunnelRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  const writes = definitionWrites(deps, funnels);

  return async (app) => {
    projectDefinitionRoutes(app, deps, funnels);

    app.post(
      "/",
      {
        schema: {
          summary: "Create a funnel",
          description: "The slug is unique among the project's active funnels; a soft-deleted funnel leaves its slug to a new funnel.",
          tags,
          params: projectParams,
          body: createBody,
          response: { 201: funnelBody, 409: conflictBody },
          examples: {
            body: { name: "Purchase", slug: "purchase", steps: exampleSteps },
            201: {
              id: "3d0c8a2e-5b71-4f6a-9e43-1c2b7d8e9f01",
              project_id: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
              name: "Purchase",
              slug: "purchase",
              description: null,
              steps: exampleSteps,
              created_at: "2025-01-15T09:30:00.000Z",
              updated_at: "2025-01-15T09:30:00.000Z",
            },
          },
        },
        config: { access: team(FUNNELS_WRITE) },
      },
      async (request, reply) => {
        const { projectId } = request.params;
        const { slug, name, description, steps } = request.body;
        await writes.decide(request.caller, projectId, {
          type: "CreateFunnel",
          funnelId: newId(),
          projectId,
          slug,
          values: { name, description: description ?? null, steps },
        });
        return reply.code(201).send(await writes.present(projectId, slug));
      },
    );

    app.patch(
      "/:slug",
      {
        schema: {
          summary: "Change a funnel definition",
          description: "Only the fields sent change; `steps` replaces every step. A body that alters nothing records nothing.",
          tags,
          params: definitionParams,
          body: patchBody,
          response: { 200: funnelBody },
        },
        config: { access: team(FUNNELS_WRITE) },
      },
      async (request) => {
        requireAField(request.body);
        const { projectId, slug } = request.params;
        await writes.decide(request.caller, projectId, { type: "UpdateFunnel", projectId, slug, patch: request.body });
        return writes.present(projectId, slug);
      },
    );
  };
}

/** /v1/funnels and /v1/funnels/by-id/:id */
export const teamFunnelRoutes = (deps: ApiDeps) => teamDefinitionRoutes(deps, funnels);
