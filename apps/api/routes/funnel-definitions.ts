import { z } from "zod";
import { createFunnel } from "../../../domain/definitions/decide.ts";
import { MAX_FIELD_CHARS } from "../../../domain/ingest/rules.ts";
import { funnelById, funnelBySlug, funnelsOfProject, funnelsOfTeams } from "../../../projections/directory/definition-queries.ts";
import type { Rule } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { chars, definitionSlug } from "../validation.ts";
import { projectDefinitionRoutes, teamDefinitionRoutes, type DefinitionKind } from "./definition-routes.ts";

export const FUNNELS_READ: Rule = { permission: "funnels:read", role: "member" };

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
  .max(20, "a funnel has 1 to 20 steps");

const createBody = z.object({ name, slug: definitionSlug, description: description.optional(), steps });
const patchBody = z.object({ name: name.optional(), description: description.optional(), steps: steps.optional() });

type FunnelRow = NonNullable<Awaited<ReturnType<typeof funnelBySlug>>>;

const funnels: DefinitionKind<FunnelRow, z.infer<typeof createBody>, z.infer<typeof patchBody>> = {
  noun: "funnel",
  plural: "funnels",
  table: "funnel_definitions",
  read: FUNNELS_READ,
  write: { permission: "funnels:write", role: "admin" },
  createBody,
  patchBody,
  ofProject: funnelsOfProject,
  ofTeams: funnelsOfTeams,
  bySlug: funnelBySlug,
  byId: funnelById,
  created: (scope, existing, body, id) =>
    createFunnel(scope, existing, { funnelId: id, slug: body.slug, name: body.name, description: body.description ?? null, steps: body.steps }),
  updated: (row, teamId, changes) => ({ type: "FunnelUpdated", v: 1, funnel_id: row.id, team_id: teamId, changes }),
  deleted: (row, teamId) => ({ type: "FunnelDeleted", v: 1, funnel_id: row.id, team_id: teamId, slug: row.slug }),
};

/** /v1/projects/:projectId/funnels */
export const projectFunnelRoutes = (deps: ApiDeps) => projectDefinitionRoutes(deps, funnels);
/** /v1/funnels and /v1/funnels/by-id/:id */
export const teamFunnelRoutes = (deps: ApiDeps) => teamDefinitionRoutes(deps, funnels);
