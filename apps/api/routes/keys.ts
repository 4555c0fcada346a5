import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { keySecret, keysDecider, resolvePermissions } from "../../../domain/keys/decider.ts";
import { visibleSecret } from "../../../domain/keys/secret-visibility.ts";
import { forbidden, invalid, notFound } from "../../../domain/shared/errors.ts";
import { newId, randomToken } from "../../../domain/shared/ids.ts";
import { KEY_TYPES } from "../../../domain/shared/permissions.ts";
import { activeApp } from "../../../projections/directory/catalog-queries.ts";
import { activeKey, keysOfTeams, rolesOfViewer, teamKeys } from "../../../projections/directory/key-queries.ts";
import type { KeyRow } from "../../../projections/directory/queries.ts";
import { creatorOf, team, visibleTeams, type Rule } from "../auth/access.ts";
import type { UserPrincipal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleKey } from "../resource-access.ts";
import { deletedBody, idParams, TAGS } from "../schemas/common.ts";
import { EXAMPLE } from "../schemas/examples.ts";
import { apiKeyAnswer, exampleAgentKey, listedApiKeyBody } from "../schemas/keys.ts";
import { teamCommand } from "../team-command.ts";
import { uuid } from "../validation.ts";

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
  team_id: uuid.optional().describe("required for agent keys without app_id"),
  app_id: uuid.optional().describe("required for client and import keys; names the team of an agent key"),
  permissions: permissions.optional().describe("the key type's defaults when omitted"),
  expires_in_days: z.number().int().min(1).max(36_500).optional().describe("never expires when omitted"),
});
const patchBody = z.object({ name: name.optional(), permissions: permissions.optional() });
const tags = [TAGS.keys];

/** /v1/auth/keys: API keys of the caller's teams; members see some secrets masked (see docs/decisions.md). */
export function keyRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  /** Keys as `viewer` sees them: secrets masked where domain/keys/secret-visibility.ts says so. */
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

  /** Reads back after a write; a delete racing in between answers 404 rather than failing. */
  async function presentKey(keyId: string) {
    const key = await activeKey(deps.pool, keyId);
    if (!key) throw notFound("api key");
    return { api_key: key };
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

  /** The decider's state of a team's keys. */
  const load = (teamId: string) => teamKeys(deps.pool, teamId);

  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "List API keys",
          description: "Keys of the caller's teams. Members read the full secret of client keys and of keys they created; other secrets are masked.",
          tags,
          querystring: z.object({ team_id: uuid.optional() }),
          response: { 200: z.object({ api_keys: z.array(listedApiKeyBody) }) },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const teams = await visibleTeams(deps, request.caller, READ, request.query.team_id);
        // Reading keys is user-only: the access rule has refused API keys already.
        return { api_keys: await withVisibleSecrets(request.user, await keysOfTeams(deps.pool, teams)) };
      },
    );

    app.get(
      "/:id",
      { schema: { summary: "Get an API key", tags, params: idParams, response: { 200: apiKeyAnswer } }, config: { access: team(READ) } },
      async (request) => {
        const [key] = await withVisibleSecrets(request.user, [await accessibleKey(deps, request.caller, request.params.id, READ)]);
        return { api_key: key! };
      },
    );

    app.post(
      "/",
      {
        schema: {
          summary: "Create an API key",
          description:
            "Client and import keys belong to an app, agent keys to a team. The answer carries the full secret. Agent keys holding apps:write may create import keys; every other key is created by a user.",
          tags,
          body: createBody,
          response: { 201: apiKeyAnswer },
          examples: {
            body: { name: "CI", key_type: "agent", team_id: EXAMPLE.teamId, permissions: ["projects:read", "events:read"], expires_in_days: 30 },
            201: { api_key: exampleAgentKey },
          },
        },
        config: { access: team(CREATE_IMPORT_KEY) },
      },
      async (request, reply) => {
        const { caller, body } = request;
        // Which rule applies depends on the body: agent keys holding apps:write may create import keys,
        // every other key is managed by a user.
        const rule = caller.kind === "key" && body.key_type === "import" ? CREATE_IMPORT_KEY : MANAGE;
        if (caller.kind === "key" && rule === MANAGE) throw forbidden("this operation requires a user session");
        const scope = await scopeOf(body);
        // Refused permissions are a 400 before the team is checked, as they always were; the decider applies the same rule.
        resolvePermissions(body.key_type, body.permissions);
        const keyId = newId();
        await teamCommand(deps, caller, {
          teamId: scope.teamId,
          decider: keysDecider,
          load,
          command: {
            type: "CreateKey",
            keyId,
            secret: keySecret(body.key_type, randomToken(24)),
            keyType: body.key_type,
            appId: scope.appId,
            name: body.name,
            permissions: body.permissions,
            createdBy: creatorOf(caller),
            expiresAt: body.expires_in_days === undefined ? null : new Date(Date.now() + body.expires_in_days * DAY_MS).toISOString(),
          },
          // The key does not exist yet: a foreign team hides the app of an app key, or the team of an agent key.
          access: { rule, resource: scope.appId ? "app" : "team" },
        });
        return reply.code(201).send(await presentKey(keyId));
      },
    );

    app.patch(
      "/:id",
      {
        schema: { summary: "Rename an API key or change its permissions", tags, params: idParams, body: patchBody, response: { 200: apiKeyAnswer } },
        config: { access: team(MANAGE) },
      },
      async (request) => {
        const { name, permissions } = request.body;
        if (name === undefined && permissions === undefined) throw invalid("body: name or permissions is required");
        const { team_id: teamId } = await accessibleKey(deps, request.caller, request.params.id, MANAGE);
        await teamCommand(deps, request.caller, {
          teamId,
          decider: keysDecider,
          load,
          command: { type: "UpdateKey", keyId: request.params.id, name, permissions },
          access: { rule: MANAGE, resource: "api key" },
        });
        return presentKey(request.params.id);
      },
    );

    app.delete(
      "/:id",
      { schema: { summary: "Delete an API key", tags, params: idParams, response: { 200: deletedBody } }, config: { access: team(MANAGE) } },
      async (request) => {
        const { team_id: teamId } = await accessibleKey(deps, request.caller, request.params.id, MANAGE);
        await teamCommand(deps, request.caller, {
          teamId,
          decider: keysDecider,
          load,
          command: { type: "DeleteKey", keyId: request.params.id },
          access: { rule: MANAGE, resource: "api key" },
        });
        return { deleted: true as const };
      },
    );
  };
}
