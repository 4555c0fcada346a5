import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { projectsDecider } from "../../../domain/projects/decider.ts";
import { ISSUE_ALERT_FREQUENCIES } from "../../../domain/projects/settings.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { newId, SLUG_PATTERN } from "../../../domain/shared/ids.ts";
import { activeProject, appsOfProject, projectsOfTeams, teamProjects, toProject } from "../../../projections/directory/catalog-queries.ts";
import { presentApps } from "../app-ratings.ts";
import { team, visibleTeams, type Rule } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../resource-access.ts";
import { appBody, exampleProject, projectBody } from "../schemas/catalog.ts";
import { changingSomething, deletedBody, errorBody, idParams, TAGS } from "../schemas/common.ts";
import { EXAMPLE } from "../schemas/examples.ts";
import { teamCommand } from "../team-command.ts";
import { uuid } from "../validation.ts";

const READ: Rule = { permission: "projects:read", role: "member" };
const WRITE: Rule = { permission: "projects:write", role: "admin" };
const REMOVE: Rule = { ...WRITE, userOnly: true };

const name = z.string().trim().min(1).max(100);
const slug = z.string().min(1).max(60).regex(SLUG_PATTERN, "must match ^[a-z0-9-]+$");
const retentionDays = z.number().int().min(1).max(36_500).nullable();
const quotaBytes = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable();

const createBody = z.object({
  color: z.undefined({ errorMap: () => ({ message: "is assigned from the palette at creation; change it with PATCH" }) }),
  team_id: uuid,
  name,
  slug,
  retention_days_events: retentionDays.optional(),
  retention_days_metrics: retentionDays.optional(),
  retention_days_funnels: retentionDays.optional(),
});

const patchBody = changingSomething(
  z.object({
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
  }),
);

const tags = [TAGS.projects];

/** /v1/projects: projects of the caller's teams. Every change is a fact on the team's subject. */
export function projectRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  /** Reads back after a write; a delete racing in between answers 404 rather than failing. */
  async function presentProject(projectId: string) {
    const project = await activeProject(deps.pool, projectId);
    if (!project) throw notFound("project");
    return toProject(project);
  }

  /** The decider's state of a team's projects. */
  const load = (teamId: string) => teamProjects(deps.pool, teamId);

  return async (app) => {
    app.get(
      "/",
      {
        schema: { summary: "List projects", tags, querystring: z.object({ team_id: uuid.optional() }), response: { 200: z.object({ projects: z.array(projectBody) }) } },
        config: { access: team(READ) },
      },
      async (request) => {
        const teams = await visibleTeams(deps, request.caller, READ, request.query.team_id);
        return { projects: (await projectsOfTeams(deps.pool, teams)).map(toProject) };
      },
    );

    app.get(
      "/:id",
      {
        schema: { summary: "Get a project with its apps", tags, params: idParams, response: { 200: projectBody.extend({ apps: z.array(appBody) }) } },
        config: { access: team(READ) },
      },
      async (request) => {
        const project = await accessibleProject(deps, request.caller, request.params.id, READ);
        return { ...toProject(project), apps: await presentApps(deps.pool, await appsOfProject(deps.pool, project.id)) };
      },
    );

    app.post(
      "/",
      {
        schema: {
          summary: "Create a project",
          description: "The slug is unique among the team's active projects; a soft-deleted project with the same slug is replaced. The colour comes from the palette.",
          tags,
          body: createBody,
          response: { 201: projectBody, 409: errorBody },
          examples: { body: { team_id: EXAMPLE.teamId, name: "My app", slug: "my-app" }, 201: exampleProject },
        },
        config: { access: team(WRITE) },
      },
      async (request, reply) => {
        const { team_id: teamId, name, slug, retention_days_events, retention_days_metrics, retention_days_funnels } = request.body;
        const projectId = newId();
        await teamCommand(deps, request.caller, {
          teamId,
          decider: projectsDecider,
          load,
          command: {
            type: "CreateProject",
            projectId,
            name,
            slug,
            retention_days_events: retention_days_events ?? null,
            retention_days_metrics: retention_days_metrics ?? null,
            retention_days_funnels: retention_days_funnels ?? null,
          },
          // The project does not exist yet: a team the caller cannot see is the team not found.
          access: { rule: WRITE, resource: "team" },
        });
        return reply.code(201).send(await presentProject(projectId));
      },
    );

    app.patch(
      "/:id",
      {
        schema: { summary: "Change a project's name, colour or settings", tags, params: idParams, body: patchBody, response: { 200: projectBody } },
        config: { access: team(WRITE) },
      },
      async (request) => {
        const { team_id: teamId } = await accessibleProject(deps, request.caller, request.params.id, WRITE);
        await teamCommand(deps, request.caller, {
          teamId,
          decider: projectsDecider,
          load,
          command: { type: "UpdateProject", projectId: request.params.id, patch: request.body },
          access: { rule: WRITE, resource: "project" },
        });
        return presentProject(request.params.id);
      },
    );

    app.delete(
      "/:id",
      {
        schema: { summary: "Delete a project with its apps, keys and definitions", tags, params: idParams, response: { 200: deletedBody } },
        config: { access: team(REMOVE) },
      },
      async (request) => {
        const { team_id: teamId } = await accessibleProject(deps, request.caller, request.params.id, REMOVE);
        await teamCommand(deps, request.caller, {
          teamId,
          decider: projectsDecider,
          load,
          command: { type: "DeleteProject", projectId: request.params.id },
          access: { rule: REMOVE, resource: "project" },
        });
        return { deleted: true as const };
      },
    );
  };
}
