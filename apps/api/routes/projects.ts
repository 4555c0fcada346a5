import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { createProject, updateProject } from "../../../domain/projects/decide.ts";
import { ISSUE_ALERT_FREQUENCIES } from "../../../domain/projects/settings.ts";
import { invalid, notFound } from "../../../domain/shared/errors.ts";
import { newId, SLUG_PATTERN } from "../../../domain/shared/ids.ts";
import {
  activeProject,
  appsOfProject,
  projectsOfTeams,
  teamProjects,
  toApp,
  toProject,
} from "../../../projections/directory/catalog-queries.ts";
import { authorize, checkKeyRule, visibleTeams, type Rule } from "../auth/access.ts";
import { callerOf, requirePrincipal, type Principal } from "../auth/principal.ts";
import { teamCommand } from "../commands.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject as projectFor } from "../resource-access.ts";
import { parse, uuid } from "../validation.ts";

const READ: Rule = { permission: "projects:read", role: "member" };
const WRITE: Rule = { permission: "projects:write", role: "admin" };
const REMOVE: Rule = { ...WRITE, userOnly: true };

const name = z.string().trim().min(1).max(100);
const slug = z.string().min(1).max(60).regex(SLUG_PATTERN, "must match ^[a-z0-9-]+$");
const retentionDays = z.number().int().min(1).max(36_500).nullable();
const quotaBytes = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable();

const createBody = z.object({
  team_id: uuid,
  name,
  slug,
  retention_days_events: retentionDays.optional(),
  retention_days_metrics: retentionDays.optional(),
  retention_days_funnels: retentionDays.optional(),
});

const patchBody = z.object({
  name: name.optional(),
  color: z
    .string()
    .regex(/^#[0-9A-Fa-f]{6}$/, "must be a colour like #RRGGBB")
    .transform((color) => color.toUpperCase())
    .optional(),
  retention_days_events: retentionDays.optional(),
  retention_days_metrics: retentionDays.optional(),
  retention_days_funnels: retentionDays.optional(),
  attachment_user_quota_bytes: quotaBytes.optional(),
  attachment_project_quota_bytes: quotaBytes.optional(),
  issue_alert_frequency: z.enum(ISSUE_ALERT_FREQUENCIES).nullable().optional(),
});

const idParams = z.object({ id: uuid });

/** /v1/projects: projects of the caller's teams. Every change is a fact on the team's subject. */
export function projectRoutes(deps: ApiDeps) {
  const accessibleProject = (caller: Principal, projectId: string, rule: Rule) => projectFor(deps, caller, projectId, rule);

  /** Reads back after a write; a delete racing in between answers 404 rather than failing. */
  async function presentProject(projectId: string) {
    const project = await activeProject(deps.pool, projectId);
    if (!project) throw notFound("project");
    return toProject(project);
  }

  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      const query = parse(z.object({ team_id: uuid.optional() }), request.query, "query");
      const teams = await visibleTeams(deps, caller, READ, query.team_id);
      return { projects: (await projectsOfTeams(deps.pool, teams)).map(toProject) };
    });

    app.get("/:id", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, READ);
      const { id } = parse(idParams, request.params, "params");
      const project = await accessibleProject(caller, id, READ);
      return { ...toProject(project), apps: (await appsOfProject(deps.pool, id)).map(toApp) };
    });

    app.post("/", async (request, reply) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, WRITE);
      if (typeof request.body === "object" && request.body !== null && "color" in request.body) {
        throw invalid("color: is assigned from the palette at creation; change it with PATCH");
      }
      const body = parse(createBody, request.body);
      const projectId = newId();
      await teamCommand(deps, caller, body.team_id, async () => {
        await authorize(deps, caller, body.team_id, WRITE, "team");
        return createProject(await teamProjects(deps.pool, body.team_id), {
          projectId,
          name: body.name,
          slug: body.slug,
          retention_days_events: body.retention_days_events ?? null,
          retention_days_metrics: body.retention_days_metrics ?? null,
          retention_days_funnels: body.retention_days_funnels ?? null,
        });
      });
      return reply.code(201).send(await presentProject(projectId));
    });

    app.patch("/:id", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, WRITE);
      const { id } = parse(idParams, request.params, "params");
      const body = parse(patchBody, request.body);
      if (Object.values(body).every((value) => value === undefined)) throw invalid("body: name at least one field to change");
      const { team_id } = await accessibleProject(caller, id, WRITE);
      await teamCommand(deps, caller, team_id, async () => updateProject(await accessibleProject(caller, id, WRITE), body));
      return presentProject(id);
    });

    app.delete("/:id", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, REMOVE);
      const { id } = parse(idParams, request.params, "params");
      const { team_id } = await accessibleProject(caller, id, REMOVE);
      await teamCommand(deps, caller, team_id, async () => {
        const project = await accessibleProject(caller, id, REMOVE);
        return [{ type: "ProjectDeleted", v: 1, project_id: id, team_id, slug: project.slug }];
      });
      return { deleted: true };
    });
  };
}
