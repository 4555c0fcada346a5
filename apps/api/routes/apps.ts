import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { PLATFORMS } from "../../../domain/apps/events.ts";
import { clientKeyCreated } from "../../../domain/keys/decide.ts";
import { invalid, notFound } from "../../../domain/shared/errors.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { activeApp, activeProject, appsOfTeams, toApp } from "../../../projections/directory/catalog-queries.ts";
import { authorize, checkKeyRule, visibleTeams, type Rule } from "../auth/access.ts";
import { callerOf, requirePrincipal, type Principal } from "../auth/principal.ts";
import { teamCommand } from "../commands.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleApp as appFor } from "../resource-access.ts";
import { parse, uuid } from "../validation.ts";

const READ: Rule = { permission: "apps:read", role: "member" };
const WRITE: Rule = { permission: "apps:write", role: "admin" };
const REMOVE: Rule = { ...WRITE, userOnly: true };

const name = z.string().trim().min(1).max(100);
const createBody = z.object({
  name,
  platform: z.enum(PLATFORMS),
  project_id: uuid,
  // Empty means none: required (400) for client platforms below, ignored for backend apps.
  bundle_id: z.string().trim().max(255).nullable().optional().transform((value) => (value === "" ? null : value)),
});
const IMMUTABLE = ["platform", "bundle_id", "project_id", "team_id", "client_secret"] as const;
const idParams = z.object({ id: uuid });

/** /v1/apps: apps of the caller's teams; each app is created with its client key in one fact. */
export function appRoutes(deps: ApiDeps) {
  const accessibleApp = (caller: Principal, appId: string, rule: Rule) => appFor(deps, caller, appId, rule);

  async function presentApp(appId: string) {
    const app = await activeApp(deps.pool, appId);
    if (!app) throw notFound("app");
    return toApp(app);
  }

  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      const query = parse(z.object({ team_id: uuid.optional() }), request.query, "query");
      const teams = await visibleTeams(deps, caller, READ, query.team_id);
      return { apps: (await appsOfTeams(deps.pool, teams)).map(toApp) };
    });

    app.get("/:id", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, READ);
      const { id } = parse(idParams, request.params, "params");
      return toApp(await accessibleApp(caller, id, READ));
    });

    app.post("/", async (request, reply) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, WRITE);
      const body = parse(createBody, request.body);
      // Backend apps have no bundle: one sent anyway is ignored rather than stored.
      const bundleId = body.platform === "backend" ? null : (body.bundle_id ?? null);
      if (body.platform !== "backend" && bundleId === null) throw invalid(`bundle_id: required for ${body.platform} apps`);
      const project = await activeProject(deps.pool, body.project_id);
      if (!project) throw notFound("project");
      const appId = newId();
      await teamCommand(deps, caller, project.team_id, async () => {
        await authorize(deps, caller, project.team_id, WRITE, "project");
        if (!(await activeProject(deps.pool, body.project_id))) throw notFound("project");
        const clientKey = clientKeyCreated({ teamId: project.team_id, appId, createdBy: creatorOf(caller) });
        return [
          {
            type: "AppCreated",
            v: 1,
            app_id: appId,
            team_id: project.team_id,
            project_id: project.id,
            name: body.name,
            platform: body.platform,
            bundle_id: bundleId,
            client_key_id: clientKey.key_id,
          },
          clientKey,
        ];
      });
      return reply.code(201).send(await presentApp(appId));
    });

    app.patch("/:id", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, WRITE);
      const { id } = parse(idParams, request.params, "params");
      const body = parse(z.object({ name }).passthrough(), request.body) as { name: string } & Record<string, unknown>;
      const current = await accessibleApp(caller, id, WRITE);
      const changed = IMMUTABLE.find((field) => field in body && !sameValue(body[field], current[field]));
      if (changed) throw invalid(`${changed}: cannot be changed; only name can`);
      await teamCommand(deps, caller, current.team_id, async () => {
        const app = await accessibleApp(caller, id, WRITE);
        if (app.name === body.name) return [];
        return [{ type: "AppRenamed", v: 1, app_id: id, team_id: app.team_id, name: body.name, previous_name: app.name }];
      });
      return presentApp(id);
    });

    app.delete("/:id", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      checkKeyRule(caller, REMOVE);
      const { id } = parse(idParams, request.params, "params");
      const current = await accessibleApp(caller, id, REMOVE);
      await teamCommand(deps, caller, current.team_id, async () => {
        const app = await accessibleApp(caller, id, REMOVE);
        return [{ type: "AppDeleted", v: 1, app_id: id, team_id: app.team_id, project_id: app.project_id }];
      });
      return { deleted: true };
    });
  };
}

/** A field sent back as it is stored: ids in any letter case, and an empty string for none. */
const sameValue = (sent: unknown, stored: unknown) => {
  const id = uuid.safeParse(sent);
  return (sent === "" ? null : id.success ? id.data : sent) === stored;
};

/** The user a key is recorded as created by: the user, or the user behind the calling agent key. */
export const creatorOf = (caller: Principal): string | null => (caller.kind === "user" ? caller.userId : caller.createdBy);
