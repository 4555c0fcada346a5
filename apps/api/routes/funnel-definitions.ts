import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { changesOf, createFunnel } from "../../../domain/definitions/decide.ts";
import { invalid, notFound } from "../../../domain/shared/errors.ts";
import { newId, SLUG_PATTERN } from "../../../domain/shared/ids.ts";
import {
  definitionSummaries,
  funnelById,
  funnelBySlug,
  funnelsOfProject,
  funnelsOfTeams,
} from "../../../projections/directory/definition-queries.ts";
import { actorOf, authorize, checkKeyRule, visibleTeams, type Rule } from "../auth/access.ts";
import { callerOf, requirePrincipal, type Principal } from "../auth/principal.ts";
import { runCommand } from "../commands.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../project-access.ts";
import { parse, uuid } from "../validation.ts";

export const FUNNELS_READ: Rule = { permission: "funnels:read", role: "member" };
const WRITE: Rule = { permission: "funnels:write", role: "admin" };

const slug = z.string().min(1).max(60).regex(SLUG_PATTERN, "must match ^[a-z0-9-]+$");
const name = z.string().trim().min(1).max(100);
const description = z.string().max(2_000).nullable();
const filterValue = z.string().min(1).max(200).optional();
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

const createBody = z.object({ name, slug, description: description.optional(), steps });
const patchBody = z.object({ name: name.optional(), description: description.optional(), steps: steps.optional() });
const projectParams = z.object({ projectId: uuid });
const funnelParams = z.object({ projectId: uuid, slug });

/** /v1/projects/:projectId/funnels: funnel definitions of one project. */
export function projectFunnelRoutes(deps: ApiDeps) {
  async function funnelOf(caller: Principal, params: unknown, rule: Rule) {
    const { projectId, slug } = parse(funnelParams, params, "params");
    const project = await accessibleProject(deps, caller, projectId, rule);
    const funnel = await funnelBySlug(deps.pool, projectId, slug);
    if (!funnel) throw notFound("funnel");
    return { project, funnel };
  }

  const teamCommand = (caller: Principal, teamId: string, decide: Parameters<typeof runCommand>[1]["decide"]) =>
    runCommand(deps, { aggregate: "team", id: teamId, actor: actorOf(caller), decide });

  async function present(projectId: string, slugValue: string) {
    const funnel = await funnelBySlug(deps.pool, projectId, slugValue);
    if (!funnel) throw notFound("funnel");
    return funnel;
  }

  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, FUNNELS_READ);
      const { projectId } = parse(projectParams, request.params, "params");
      await accessibleProject(deps, caller, projectId, FUNNELS_READ);
      return { funnels: await funnelsOfProject(deps.pool, projectId) };
    });

    app.get("/:slug", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, FUNNELS_READ);
      return (await funnelOf(caller, request.params, FUNNELS_READ)).funnel;
    });

    app.post("/", async (request, reply) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, WRITE);
      const { projectId } = parse(projectParams, request.params, "params");
      const body = parse(createBody, request.body);
      const project = await accessibleProject(deps, caller, projectId, WRITE);
      const funnelId = newId();
      await teamCommand(caller, project.team_id, async () => {
        await accessibleProject(deps, caller, projectId, WRITE);
        return createFunnel({ teamId: project.team_id, projectId }, await definitionSummaries(deps.pool, "funnel_definitions", projectId), {
          funnelId,
          slug: body.slug,
          name: body.name,
          description: body.description ?? null,
          steps: body.steps,
        });
      });
      return reply.code(201).send(await present(projectId, body.slug));
    });

    app.patch("/:slug", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, WRITE);
      const body = parse(patchBody, request.body);
      if (Object.values(body).every((value) => value === undefined)) throw invalid("body: name at least one field to change");
      const { project, funnel } = await funnelOf(caller, request.params, WRITE);
      await teamCommand(caller, project.team_id, async () => {
        const current = (await funnelOf(caller, request.params, WRITE)).funnel;
        const changes = changesOf(current, body);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: "FunnelUpdated", v: 1, funnel_id: current.id, team_id: project.team_id, changes }];
      });
      return present(project.id, funnel.slug);
    });

    app.delete("/:slug", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, WRITE);
      const { project } = await funnelOf(caller, request.params, WRITE);
      await teamCommand(caller, project.team_id, async () => {
        const { funnel } = await funnelOf(caller, request.params, WRITE);
        return [{ type: "FunnelDeleted", v: 1, funnel_id: funnel.id, team_id: project.team_id, slug: funnel.slug }];
      });
      return { deleted: true };
    });
  };
}

/** /v1/funnels: funnel definitions across the caller's projects. */
export function teamFunnelRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      const query = parse(z.object({ team_id: uuid }), request.query, "query");
      const teams = await visibleTeams(deps, caller, FUNNELS_READ, query.team_id);
      return { funnels: await funnelsOfTeams(deps.pool, teams) };
    });

    app.get("/by-id/:id", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, FUNNELS_READ);
      const { id } = parse(z.object({ id: uuid }), request.params, "params");
      const found = await funnelById(deps.pool, id);
      if (!found) throw notFound("funnel");
      await authorize(deps, caller, found.team_id, FUNNELS_READ, "funnel");
      const { team_id: _team, ...funnel } = found;
      return funnel;
    });
  };
}
