import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { notFound } from "../../../domain/shared/errors.ts";
import { defaultAgentKey, memberRole, teamsOfUser, userById } from "../../../projections/directory/queries.ts";
import { agentLoginTeam, asCaller, createAgentKey, findOrRegisterUser, renameUser, signedInTeams, whoAmI } from "../accounts.ts";
import { ANY_CREDENTIAL, PUBLIC, SESSION } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { agentLoginBody, agentLoginRefusal, agentLoginRequest, codeSentBody, defaultAgentKeyBody, defaultAgentKeyRequest } from "../schemas/accounts.ts";
import { exampleAgentLogin, exampleSession, exampleUser, loggedOutBody, meBody, renameMeBody, sendCodeBody } from "../schemas/accounts.ts";
import { sessionBody, teamsBody, userOnlyBody, verifyCodeBody, whoamiBody } from "../schemas/accounts.ts";
import { errorBody, TAGS } from "../schemas/common.ts";

const TEN_YEARS_SECONDS = 10 * 365 * 24 * 60 * 60;
const tags = [TAGS.auth];

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
          body: sendCodeBody,
          response: { 200: codeSentBody, 429: errorBody },
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
          body: verifyCodeBody,
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
        const teams = await signedInTeams(deps, user.id);
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
          body: agentLoginRequest,
          response: { 201: agentLoginBody, 400: agentLoginRefusal, 401: errorBody, 404: errorBody, 429: errorBody },
          examples: { body: { email: "ada@example.com", code: "123456" }, 201: exampleAgentLogin },
        },
        config: { access: PUBLIC },
      },
      async (request, reply) => {
        const { body } = request;
        // Check the code without spending it, so a caller asked to pick a team can retry with the same code.
        await codes.verify(body.email, body.code, false);
        const { user } = await findOrRegisterUser(deps, body.email);
        const team = await agentLoginTeam(deps, user.id, body.team_id);
        await codes.verify(body.email, body.code, true);
        const key = await createAgentKey(deps, { teamId: team.id, caller: asCaller(user), name: "Agent key (agent-login)" });
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
          body: defaultAgentKeyRequest,
          response: { 200: defaultAgentKeyBody, 201: defaultAgentKeyBody, 404: errorBody },
        },
        config: { access: SESSION },
      },
      async (request, reply) => {
        const teamId = request.body.team_id;
        if (!(await memberRole(deps.pool, teamId, request.user.userId))) throw notFound("team");
        const existing = await defaultAgentKey(deps.pool, teamId);
        if (existing) return reply.code(200).send({ secret: existing.secret, created: false });
        const key = await createAgentKey(deps, { teamId, caller: request.user, name: "Default agent key" });
        return reply.code(201).send({ secret: key.secret, created: true });
      },
    );

    app.post(
      "/logout",
      { schema: { summary: "Sign out", description: "Clears the session cookie.", tags, response: { 200: loggedOutBody } }, config: { access: PUBLIC } },
      async (_request, reply) => {
        reply.clearCookie("token", cookieOptions);
        return { success: true as const };
      },
    );

    app.get(
      "/whoami",
      { schema: { summary: "Who the credentials belong to", tags, response: { 200: whoamiBody } }, config: { access: ANY_CREDENTIAL } },
      async (request) => whoAmI(deps, request.caller),
    );

    app.get(
      "/teams",
      { schema: { summary: "List the caller's teams", tags, response: { 200: teamsBody } }, config: { access: SESSION } },
      async (request) => ({ teams: [...(await teamsOfUser(deps.pool, request.user.userId))] }),
    );

    app.get(
      "/me",
      { schema: { summary: "The caller's account and teams", tags, response: { 200: meBody } }, config: { access: SESSION } },
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
          body: renameMeBody,
          response: { 200: userOnlyBody },
          examples: { body: { name: "Ada Lovelace" }, 200: { user: { ...exampleUser, name: "Ada Lovelace" } } },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const { userId } = request.user;
        await renameUser(deps, userId, request.body.name);
        const user = await userById(deps.pool, userId);
        if (!user) throw notFound("user");
        return { user };
      },
    );
  };
}
