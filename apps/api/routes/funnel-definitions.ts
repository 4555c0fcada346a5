import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { funnelsDecider, type FunnelCommand, type TeamFunnels } from "../../../domain/definitions/decider.ts";
import { MAX_FIELD_CHARS } from "../../../domain/ingest/rules.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { funnelById, funnelBySlug, funnelsOfProject, funnelsOfTeams, teamFunnels, type FunnelRow } from "../../../projections/directory/definition-queries.ts";
import type { Rule } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { changingSomething } from "../schemas/common.ts";
import { funnelBody, funnelCreateExamples } from "../schemas/definitions.ts";
import { chars, definitionSlug } from "../validation.ts";
import { projectDefinitionRoutes, teamDefinitionRoutes, type DefinitionInput, type DefinitionKind } from "./definition-routes.ts";

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
const patchBody = changingSomething(z.object({ name: name.optional(), description: description.optional(), steps: steps.optional() }));

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

const input: DefinitionInput<typeof createBody, typeof patchBody, FunnelCommand> = {
  create: {
    summary: "Create a funnel",
    description: "The slug is unique among the project's active funnels; a soft-deleted funnel leaves its slug to a new funnel.",
    body: createBody,
    examples: funnelCreateExamples,
    command: (projectId, { slug, name, description, steps }) => ({
      type: "CreateFunnel",
      funnelId: newId(),
      projectId,
      slug,
      values: { name, description: description ?? null, steps },
    }),
  },
  update: {
    description: "Only the fields sent change; `steps` replaces every step. A body that alters nothing records nothing.",
    body: patchBody,
    command: (ref, patch) => ({ type: "UpdateFunnel", ...ref, patch }),
  },
};

/** /v1/projects/:projectId/funnels */
export const projectFunnelRoutes = (deps: ApiDeps): FastifyPluginAsyncZod => projectDefinitionRoutes(deps, funnels, input);

/** /v1/funnels and /v1/funnels/by-id/:id */
export const teamFunnelRoutes = (deps: ApiDeps) => teamDefinitionRoutes(deps, funnels);
