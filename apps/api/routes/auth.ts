import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { invalid, notFound } from "../../../domain/shared/errors.ts";
import { userDecider } from "../../../domain/users/decider.ts";
import { activeTeam, defaultAgentKey, memberRole, teamsOfUser, userById, userState } from "../../../projections/directory/queries.ts";
import { createAgentKey, findOrRegisterUser } from "../accounts.ts";
import { ANY_CREDENTIAL, PUBLIC, SESSION } from "../auth/access.ts";
import { handleCommand } from "../command-handler.ts";
import type { ApiDeps } from "../deps.ts";
import {
  agentLoginBody,
  agentLoginRefusal,
  defaultAgentKeyBody,
  exampleSession,
  exampleUser,
  sessionBody,
  teamsBody,
  userBody,
  whoamiBody,
} from "../schemas/accounts.ts";
import { teamWithRoleBody } from "../schemas/teams.ts";
import { email, uuid } from "../validation.ts";

const TEN_YEARS_SECONDS = 10 * 365 * 24 * 60 * 60;
const code = z.string().regex(/^\d{6}$/, "must be 6 digits");
const errorBody = z.object({ error: z.string() });
const tags = ["auth"];

/** /v1/auth: passwordless sign-in, agent keys for a user's team, and the caller's own account. */
export function authRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  const { codes } = deps;
  const cookieOptions = {
    path: "/",
    httpOnly: true,
    sameSite: "lax" as const,
    secure: deps.config.publicBaseUrl.startsWith("https://"),
    domain: deps.config.cookieDomain,
  };

  const setSession = (reply: FastifyReply, token: string) => reply.setCookie("token", token, { ...cookieOptions, maxAge: TEN_YEARS_SECONDS });

  return async (app) => {
    app.post(
      "/send-code",
      {
        schema: {
          summary: "Mail a sign-in code",
          description: "A 6-digit code valid for 10 minutes and usable once; at most 5 codes per email per hour.",
          tags,
          body: z.object({ email }),
          response: { 200: z.object({ message: z.string() }), 429: errorBody },
          examples: { body: { email: "ada@example.com" } },
        },
        config: { access: PUBLIC },
      },
      async (request) => {
        const sent = await codes.issue(request.body.email);
        await deps.mailer.send({
          to: request.body.email,
          subject: `Your sign-in code: ${sent}`,
          text: `Your sign-in code is ${sent}. It expires in 10 minutes and can be used once.`,
        });
        return { message: "a sign-in code was sent if the address can receive email" };
      },
    );

    app.post(
      "/verify-code",
      {
        schema: {
          summary: "Sign in with a code",
          description: "Creates the account and its default team when the email is new (201). Sets the session cookie `token`.",
          tags,
          body: z.object({ email, code }),
          response: { 200: sessionBody, 201: sessionBody, 401: errorBody, 429: errorBody },
          examples: { body: { email: "ada@example.com", code: "123456" }, 201: exampleSession },
        },
        config: { access: PUBLIC },
      },
      async (request, reply) => {
        const { body } = request;
        await codes.verify(body.email, body.code, true);
        const { user, isNew } = await findOrRegisterUser(deps, body.email);
        const token = await deps.tokens.sign({ userId: user.id, email: user.email });
        const teams = await Promise.all(
          (await teamsOfUser(deps.pool, user.id)).map(async (team) => {
            const key = await defaultAgentKey(deps.pool, team.id);
            return key ? { ...team, default_agent_key: key.secret } : team;
          }),
        );
        setSession(reply, token);
        return reply.code(isNew ? 201 : 200).send({ token, user, teams, is_new_user: isNew });
      },
    );

    app.post(
      "/agent-login",
      {
        schema: {
          summary: "Get an agent key with a sign-in code",
          description: "Creates an agent key of the user in the team; no cookie is set. A user of several teams must name one in `team_id` (400 lists them).",
          tags,
          body: z.object({ email, code, team_id: uuid.optional() }),
          response: { 201: agentLoginBody, 400: agentLoginRefusal, 401: errorBody, 404: errorBody, 429: errorBody },
          examples: {
            body: { email: "ada@example.com", code: "123456" },
            201: { api_key: "svc_agent_3q2x7Qa9mKp4Lr8sWv1Yz0bC", team: { id: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", name: "Acme", slug: "acme" } },
          },
        },
        config: { access: PUBLIC },
      },
      async (request, reply) => {
        const { body } = request;
        // Check the code without spending it, so a caller asked to pick a team can retry with the same code.
        await codes.verify(body.email, body.code, false);
        const { user } = await findOrRegisterUser(deps, body.email);
        const teams = await teamsOfUser(deps.pool, user.id);
        let team = teams.find((candidate) => candidate.id === body.team_id);
        if (body.team_id !== undefined && !team) throw notFound("team");
        if (!team) {
          if (teams.length !== 1) throw invalid("you belong to several teams: pass team_id", { teams });
          team = teams[0]!;
        }
        await codes.verify(body.email, body.code, true);
        const key = await createAgentKey(deps, { teamId: team.id, userId: user.id, name: "Agent key (agent-login)" });
        return reply.code(201).send({ api_key: key.secret, team: { id: team.id, name: team.name, slug: team.slug } });
      },
    );

    app.post(
      "/default-agent-key",
      {
        schema: {
          summary: "Get or create the team's default agent key",
          description: "The team's oldest active agent key (200), or a new agent key of the caller when the team has none (201).",
          tags,
          body: z.object({ team_id: uuid }),
          response: { 200: defaultAgentKeyBody, 201: defaultAgentKeyBody, 404: errorBody },
        },
        config: { access: SESSION },
      },
      async (request, reply) => {
        const teamId = request.body.team_id;
        if (!(await memberRole(deps.pool, teamId, request.user.userId))) throw notFound("team");
        const existing = await defaultAgentKey(deps.pool, teamId);
        if (existing) return reply.code(200).send({ secret: existing.secret, created: false });
        const key = await createAgentKey(deps, { teamId, userId: request.user.userId, name: "Default agent key" });
        return reply.code(201).send({ secret: key.secret, created: true });
      },
    );

    app.post(
      "/logout",
      { schema: { summary: "Sign out", description: "Clears the session cookie.", tags, response: { 200: z.object({ success: z.literal(true) }) } }, config: { access: PUBLIC } },
      async (_request, reply) => {
        reply.clearCookie("token", cookieOptions);
        return { success: true as const };
      },
    );

    app.get(
      "/whoami",
      { schema: { summary: "Who the credentials belong to", tags, response: { 200: whoamiBody } }, config: { access: ANY_CREDENTIAL } },
      async (request) => {
        const { caller } = request;
        if (caller.kind === "key") {
          const team = await activeTeam(deps.pool, caller.teamId);
          return {
            type: "api_key" as const,
            key_type: caller.keyType,
            team: team ? { id: team.id, name: team.name, slug: team.slug } : null,
            permissions: caller.permissions,
          };
        }
        return { type: "user" as const, email: caller.email, teams: [...(await teamsOfUser(deps.pool, caller.userId))] };
      },
    );

    app.get(
      "/teams",
      { schema: { summary: "List the caller's teams", tags, response: { 200: teamsBody } }, config: { access: SESSION } },
      async (request) => ({ teams: [...(await teamsOfUser(deps.pool, request.user.userId))] }),
    );

    app.get(
      "/me",
      {
        schema: { summary: "The caller's account and teams", tags, response: { 200: z.object({ user: userBody, teams: z.array(teamWithRoleBody) }) } },
        config: { access: SESSION },
      },
      async (request) => {
        const user = await userById(deps.pool, request.user.userId);
        if (!user) throw notFound("user");
        return { user, teams: [...(await teamsOfUser(deps.pool, request.user.userId))] };
      },
    );

    app.patch(
      "/me",
      {
        schema: {
          summary: "Rename the caller",
          tags,
          body: z.object({ name: z.string().trim().min(1).max(100) }),
          response: { 200: z.object({ user: userBody }) },
          examples: { body: { name: "Ada Lovelace" }, 200: { user: { ...exampleUser, name: "Ada Lovelace" } } },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const { userId } = request.user;
        await handleCommand(deps, {
          aggregate: { type: "user", id: userId },
          decider: userDecider,
          load: () => userState(deps.pool, userId),
          command: { type: "RenameUser", name: request.body.name },
          actor: { type: "user", id: userId },
        });
        const user = await userById(deps.pool, userId);
        if (!user) throw notFound("user");
        return { user };
      },
    );
  };
}
