import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { appsDecider, bundleIdFor, type AppCommand } from "../../../domain/apps/decider.ts";
import { PLATFORMS } from "../../../domain/apps/events.ts";
import { keySecret } from "../../../domain/keys/decider.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { newId, randomToken } from "../../../domain/shared/ids.ts";
import { activeApp, activeProject, appsOfTeams, teamApps, toApp } from "../../../projections/directory/catalog-queries.ts";
import { actorOf, authorize, team, visibleTeams, type Rule } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import { handleCommand } from "../command-handler.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleApp } from "../resource-access.ts";
import { appBody } from "../schemas/catalog.ts";
import { deletedBody } from "../schemas/common.ts";
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
const params = z.object({ id: uuid });

const TEAM_ID = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b";
const PROJECT_ID = "0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d";
const APP_EXAMPLE = {
  id: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
  team_id: TEAM_ID,
  project_id: PROJECT_ID,
  name: "Shop for iOS",
  platform: "apple",
  bundle_id: "com.example.shop",
  client_secret: "svc_client_Q2xpZW50U2VjcmV0RXhhbXBsZTEyMzQ",
  worldwide_average_rating: null,
  worldwide_rating_count: null,
  worldwide_current_version_rating: null,
  worldwide_current_version_rating_count: null,
  worldwide_rating_count_delta: null,
  ratings_synced_at: null,
  created_at: "2026-11-25T12:00:00.000Z",
  updated_at: "2026-11-25T12:00:00.000Z",
};
const tags = ["apps"];

/** /v1/apps: apps of the caller's teams; each app is created with its client key in one envelope. */
export function appRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  /** Reads back after a write; a delete racing in between answers 404 rather than failing. */
  async function presentApp(appId: string) {
    const app = await activeApp(deps.pool, appId);
    if (!app) throw notFound("app");
    return toApp(app);
  }

  /** A command on the apps of `teamId`, after checking the caller may apply `rule` there. */
  const decideOnApps = (caller: Principal, teamId: string, rule: Rule, resource: string, command: AppCommand) =>
    handleCommand(deps, {
      aggregate: { type: "team", id: teamId },
      decider: appsDecider,
      load: async () => {
        await authorize(deps, caller, teamId, rule, resource);
        return teamApps(deps.pool, teamId);
      },
      command,
      actor: actorOf(caller),
    });

  return async (app) => {
    app.get(
      "/",
      {
        schema: { summary: "List apps", tags, querystring: z.object({ team_id: uuid.optional() }), response: { 200: z.object({ apps: z.array(appBody) }) } },
        config: { access: team(READ) },
      },
      async (request) => {
        const teams = await visibleTeams(deps, request.caller, READ, request.query.team_id);
        return { apps: (await appsOfTeams(deps.pool, teams)).map(toApp) };
      },
    );

    app.get(
      "/:id",
      { schema: { summary: "Get an app", tags, params, response: { 200: appBody } }, config: { access: team(READ) } },
      async (request) => toApp(await accessibleApp(deps, request.caller, request.params.id, READ)),
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
          examples: { body: { name: "Shop for iOS", platform: "apple", project_id: PROJECT_ID, bundle_id: "com.example.shop" }, 201: APP_EXAMPLE },
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
        await decideOnApps(request.caller, project.team_id, WRITE, "project", {
          type: "CreateApp",
          appId,
          projectId,
          name,
          platform,
          bundleId,
          clientKey: { keyId: newId(), secret: keySecret("client", randomToken(24)) },
          createdBy: creatorOf(request.caller),
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
          params,
          body: patchBody,
          response: { 200: appBody },
        },
        config: { access: team(WRITE) },
      },
      async (request) => {
        const { name, platform, bundle_id, project_id, team_id, client_secret } = request.body;
        const { team_id: teamId } = await accessibleApp(deps, request.caller, request.params.id, WRITE);
        await decideOnApps(request.caller, teamId, WRITE, "app", {
          type: "UpdateApp",
          appId: request.params.id,
          name,
          unchanged: { platform, bundle_id, project_id, team_id, client_secret },
        });
        return presentApp(request.params.id);
      },
    );

    app.delete(
      "/:id",
      {
        schema: { summary: "Delete an app and its keys", tags, params, response: { 200: deletedBody } },
        config: { access: team(REMOVE) },
      },
      async (request) => {
        const { team_id: teamId } = await accessibleApp(deps, request.caller, request.params.id, REMOVE);
        await decideOnApps(request.caller, teamId, REMOVE, "app", { type: "DeleteApp", appId: request.params.id });
        return { deleted: true as const };
      },
    );
  };
}

/** The user a key is recorded as created by: the user, or the user behind the calling agent key. */
export const creatorOf = (caller: Principal): string | null => (caller.kind === "user" ? caller.userId : caller.createdBy);
