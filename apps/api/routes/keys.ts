import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { keyCreated, resolvePermissions } from "../../../domain/keys/decide.ts";
import { visibleSecret } from "../../../domain/keys/secret-visibility.ts";
import { forbidden, invalid, notFound } from "../../../domain/shared/errors.ts";
import { KEY_TYPES } from "../../../domain/shared/permissions.ts";
import { activeApp } from "../../../projections/directory/catalog-queries.ts";
import { activeKey, keysOfTeams, rolesOfViewer } from "../../../projections/directory/key-queries.ts";
import type { KeyRow } from "../../../projections/directory/queries.ts";
import { authorize, visibleTeams, type Rule } from "../auth/access.ts";
import { callerOf, requirePrincipal, requireUser, type Principal, type UserPrincipal } from "../auth/principal.ts";
import { teamCommand } from "../commands.ts";
import type { ApiDeps } from "../deps.ts";
import { parse, uuid } from "../validation.ts";
import { creatorOf } from "./apps.ts";

const DAY_MS = 86_400_000;

/** Reading keys: any member of the key's team. Managing them: admins (agent keys only create import keys). */
const READ: Rule = { permission: "apps:read", role: "member", userOnly: true };
const MANAGE: Rule = { permission: "apps:write", role: "admin", userOnly: true };
const CREATE_IMPORT_KEY: Rule = { permission: "apps:write", role: "admin" };

const name = z.string().trim().min(1).max(100);
const permissions = z.array(z.string().max(50)).max(50);
const createBody = z.object({
  name,
  key_type: z.enum(KEY_TYPES),
  team_id: uuid.optional(),
  app_id: uuid.optional(),
  permissions: permissions.optional(),
  expires_in_days: z.number().int().min(1).max(36_500).optional(),
});
const patchBody = z.object({ name: name.optional(), permissions: permissions.optional() });
const idParams = z.object({ id: uuid });

/** /v1/auth/keys: API keys of the caller's teams; members see some secrets masked (see docs/decisions.md). */
export function keyRoutes(deps: ApiDeps) {
  async function accessibleKey(caller: Principal, keyId: string, rule: Rule) {
    const key = await activeKey(deps.pool, keyId);
    if (!key) throw notFound("api key");
    await authorize(deps, caller, key.team_id, rule, "api key");
    return key;
  }

  /** Keys as `caller` sees them: secrets masked where domain/keys/secret-visibility.ts says so. */
  async function withVisibleSecrets<K extends KeyRow>(viewer: UserPrincipal, keys: readonly K[]): Promise<K[]> {
    const roles = await rolesOfViewer(deps.pool, viewer.userId, [...new Set(keys.map((key) => key.team_id))]);
    return keys.map((key) => ({
      ...key,
      secret: visibleSecret(
        { keyType: key.key_type, createdBy: key.created_by, secret: key.secret },
        { userId: viewer.userId, role: roles.get(key.team_id) ?? null },
      ),
    }));
  }

  async function presentKey(keyId: string) {
    const key = await activeKey(deps.pool, keyId);
    if (!key) throw notFound("api key");
    return key;
  }

  /** The team a new key belongs to: its app's team for app keys, `team_id` for agent keys. */
  async function scopeOf(body: z.infer<typeof createBody>): Promise<{ teamId: string; appId: string | null }> {
    if (body.key_type !== "agent" && body.app_id === undefined) throw invalid(`app_id: required for ${body.key_type} keys`);
    if (body.app_id !== undefined) {
      const app = await activeApp(deps.pool, body.app_id);
      if (!app) throw notFound("app");
      // Agent keys are team-scoped: an app only names the team.
      return { teamId: app.team_id, appId: body.key_type === "agent" ? null : app.id };
    }
    if (body.team_id === undefined) throw invalid("team_id: required for agent keys without app_id");
    return { teamId: body.team_id, appId: null };
  }

  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      const query = parse(z.object({ team_id: uuid.optional() }), request.query, "query");
      const teams = await visibleTeams(deps, caller, READ, query.team_id);
      // Reading keys is user-only: visibleTeams has refused API keys already.
      return { api_keys: await withVisibleSecrets(requireUser(caller), await keysOfTeams(deps.pool, teams)) };
    });

    app.get("/:id", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { id } = parse(idParams, request.params, "params");
      const [key] = await withVisibleSecrets(caller, [await accessibleKey(caller, id, READ)]);
      return { api_key: key };
    });

    app.post("/", async (request, reply) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      const body = parse(createBody, request.body);
      // Agent keys holding apps:write may create import keys; every other key management needs a user.
      const rule = caller.kind === "key" && body.key_type === "import" ? CREATE_IMPORT_KEY : MANAGE;
      if (caller.kind === "key" && rule === MANAGE) throw forbidden("this operation requires a user session");
      const scope = await scopeOf(body);
      const granted = resolvePermissions(body.key_type, body.permissions);
      const key = keyCreated({
        keyType: body.key_type,
        teamId: scope.teamId,
        appId: scope.appId,
        name: body.name,
        permissions: granted,
        createdBy: creatorOf(caller),
        expiresAt: body.expires_in_days === undefined ? null : new Date(Date.now() + body.expires_in_days * DAY_MS).toISOString(),
      });
      await teamCommand(deps, caller, scope.teamId, async () => {
        await authorize(deps, caller, scope.teamId, rule, scope.appId ? "app" : "team");
        if (scope.appId !== null && !(await activeApp(deps.pool, scope.appId))) throw notFound("app");
        return [key];
      });
      return reply.code(201).send({ api_key: await presentKey(key.key_id) });
    });

    app.patch("/:id", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { id } = parse(idParams, request.params, "params");
      const body = parse(patchBody, request.body);
      if (body.name === undefined && body.permissions === undefined) throw invalid("body: name or permissions is required");
      const current = await accessibleKey(caller, id, MANAGE);
      await teamCommand(deps, caller, current.team_id, async () => {
        const key = await accessibleKey(caller, id, MANAGE);
        const next = { name: body.name ?? key.name, permissions: body.permissions ? resolvePermissions(key.key_type, body.permissions) : key.permissions };
        const changes: Record<string, { before: unknown; after: unknown }> = {};
        if (next.name !== key.name) changes.name = { before: key.name, after: next.name };
        if (next.permissions.join() !== key.permissions.join()) changes.permissions = { before: key.permissions, after: next.permissions };
        if (Object.keys(changes).length === 0) return [];
        return [{ type: "ApiKeyUpdated", v: 1, key_id: id, team_id: key.team_id, changes, ...next }];
      });
      return { api_key: await presentKey(id) };
    });

    app.delete("/:id", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { id } = parse(idParams, request.params, "params");
      const current = await accessibleKey(caller, id, MANAGE);
      await teamCommand(deps, caller, current.team_id, async () => {
        await accessibleKey(caller, id, MANAGE);
        return [{ type: "ApiKeyDeleted", v: 1, key_id: id, team_id: current.team_id }];
      });
      return { deleted: true };
    });
  };
}
