import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { appsDecider, bundleIdFor } from "../../../domain/apps/decider.ts";
import { PLATFORMS } from "../../../domain/apps/events.ts";
import { keySecret } from "../../../domain/keys/decider.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { newId, randomToken } from "../../../domain/shared/ids.ts";
import { activeApp, activeProject, appsOfTeams, teamApps } from "../../../projections/directory/catalog-queries.ts";
import { presentApp as withStoreRatings, presentApps } from "../app-ratings.ts";
import { creatorOf, team, visibleTeams, type Rule } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleApp } from "../resource-access.ts";
import { appBody, exampleApp } from "../schemas/catalog.ts";
import { deletedBody, idParams, TAGS } from "../schemas/common.ts";
import { EXAMPLE } from "../schemas/examples.ts";
import { teamCommand } from "../team-command.ts";
import { uuid } from "../validation.ts";

const READ: Rule = { permission: "apps:read", role: "member" };
const WRITE: Rule = { permission: "apps:write", role: "admin" };
const REMOVE: Rule = { ...WRITE, userOnly: true };

const name = z.string().trim().min(1).max(100);
const createBody = z.object({
  name,
  platform: z.enum(PLATFORMS),
  project_id: uuid,
  // Empty means none: required for client platforms, ignored for backend apps (domain/apps/decider.ts).
  bundle_id: z
    .string()
    .trim()
    .max(255)
    .nullable()
    .optional()
    .transform((value) => (value === "" || value === undefined ? null : value)),
});

/**
 * A field that cannot change, sent back as it is stored: ids in any letter case and an empty
 * string for none compare equal to the stored value (the decider refuses any other value).
 */
const sentBack = z
  .unknown()
  .optional()
  .transform((sent) => {
    if (sent === "") return null;
    const id = uuid.safeParse(sent);
    return id.success ? id.data : sent;
  })
  .describe("accepted only with the app's current value");
const patchBody = z
  .object({
    name,
    platform: sentBack,
    bundle_id: sentBack,
    project_id: sentBack,
    team_id: sentBack,
    client_secret: sentBack,
  })
  .passthrough();
const tags = [TAGS.apps];

/** /v1/apps: apps of the caller's teams; each app is created with its client key in one envelope. */
export function appRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  /** Reads back after a write; a delete racing in between answers 404 rather than failing. */
  async function presentApp(appId: string) {
    const app = await activeApp(deps.pool, appId);
    if (!app) throw notFound("app");
    return withStoreRatings(deps.pool, app);
  }

  /** The decider's state of a team's apps. */
  const load = (teamId: string) => teamApps(deps.pool, teamId);

  return async (app) => {
    app.get(
      "/",
      {
        schema: { summary: "List apps", tags, querystring: z.object({ team_id: uuid.optional() }), response: { 200: z.object({ apps: z.array(appBody) }) } },
        config: { access: team(READ) },
      },
      async (request) => {
        const teams = await visibleTeams(deps, request.caller, READ, request.query.team_id);
        return { apps: await presentApps(deps.pool, await appsOfTeams(deps.pool, teams)) };
      },
    );

    app.get(
      "/:id",
      { schema: { summary: "Get an app", tags, params: idParams, response: { 200: appBody } }, config: { access: team(READ) } },
      async (request) => withStoreRatings(deps.pool, await accessibleApp(deps, request.caller, request.params.id, READ)),
    );

    app.post(
      "/",
      {
        schema: {
          summary: "Create an app with its client key",
          description:
            "The team is the project's. `bundle_id` is required for apple, android and web apps and ignored for backend apps; it never changes. The answer carries the generated client key as `client_secret`.",
          tags,
          body: createBody,
          response: { 201: appBody },
          examples: { body: { name: "Shop for iOS", platform: "apple", project_id: EXAMPLE.projectId, bundle_id: "com.example.shop" }, 201: exampleApp },
        },
        config: { access: team(WRITE) },
      },
      async (request, reply) => {
        const { name, platform, project_id: projectId, bundle_id: bundleId } = request.body;
        // A body the domain refuses is a 400 whatever the project, as before the project is looked up.
        bundleIdFor(platform, bundleId);
        const project = await activeProject(deps.pool, projectId);
        if (!project) throw notFound("project");
        const appId = newId();
        await teamCommand(deps, request.caller, {
          teamId: project.team_id,
          decider: appsDecider,
          load,
          command: {
            type: "CreateApp",
            appId,
            projectId,
            name,
            platform,
            bundleId,
            clientKey: { keyId: newId(), secret: keySecret("client", randomToken(24)) },
            createdBy: creatorOf(request.caller),
          },
          // The caller named the project: a team they cannot see hides the project.
          access: { rule: WRITE, resource: "project" },
        });
        return reply.code(201).send(await presentApp(appId));
      },
    );

    app.patch(
      "/:id",
      {
        schema: {
          summary: "Rename an app",
          description: "Only `name` changes. The other fields of the app may be sent back unchanged; a different value is a 400.",
          tags,
          params: idParams,
          body: patchBody,
          response: { 200: appBody },
        },
        config: { access: team(WRITE) },
      },
      async (request) => {
        const { name, platform, bundle_id, project_id, team_id, client_secret } = request.body;
        const { team_id: teamId } = await accessibleApp(deps, request.caller, request.params.id, WRITE);
        await teamCommand(deps, request.caller, {
          teamId,
          decider: appsDecider,
          load,
          command: { type: "UpdateApp", appId: request.params.id, name, unchanged: { platform, bundle_id, project_id, team_id, client_secret } },
          access: { rule: WRITE, resource: "app" },
        });
        return presentApp(request.params.id);
      },
    );

    app.delete(
      "/:id",
      {
        schema: { summary: "Delete an app and its keys", tags, params: idParams, response: { 200: deletedBody } },
        config: { access: team(REMOVE) },
      },
      async (request) => {
        const { team_id: teamId } = await accessibleApp(deps, request.caller, request.params.id, REMOVE);
        await teamCommand(deps, request.caller, {
          teamId,
          decider: appsDecider,
          load,
          command: { type: "DeleteApp", appId: request.params.id },
          access: { rule: REMOVE, resource: "app" },
        });
        return { deleted: true as const };
      },
    );
  };
}
