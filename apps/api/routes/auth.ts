import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { invalid, notFound } from "../../../domain/shared/errors.ts";
import { activeTeam, defaultAgentKey, memberRole, teamsOfUser, userById } from "../../../projections/directory/queries.ts";
import { createAgentKey, findOrRegisterUser } from "../accounts.ts";
import { callerOf, requirePrincipal, requireUser } from "../auth/principal.ts";
import { runCommand } from "../commands.ts";
import type { ApiDeps } from "../deps.ts";
import { email, parse, uuid } from "../validation.ts";

const TEN_YEARS_SECONDS = 10 * 365 * 24 * 60 * 60;
const codeSchema = z.string().regex(/^\d{6}$/, "must be 6 digits");

export function authRoutes(deps: ApiDeps) {
  const { codes } = deps;
  const cookieOptions = {
    path: "/",
    httpOnly: true,
    sameSite: "lax" as const,
    secure: deps.config.publicBaseUrl.startsWith("https://"),
    domain: deps.config.cookieDomain,
  };

  const setSession = (reply: FastifyReply, token: string) =>
    reply.setCookie("token", token, { ...cookieOptions, maxAge: TEN_YEARS_SECONDS });

  return async (app: FastifyInstance) => {
    app.post("/send-code", async (request) => {
      const body = parse(z.object({ email }), request.body);
      const code = await codes.issue(body.email);
      await deps.mailer.send({
        to: body.email,
        subject: `Your sign-in code: ${code}`,
        text: `Your sign-in code is ${code}. It expires in 10 minutes and can be used once.`,
      });
      return { message: "a sign-in code was sent if the address can receive email" };
    });

    app.post("/verify-code", async (request, reply) => {
      const body = parse(z.object({ email, code: codeSchema }), request.body);
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
    });

    app.post("/agent-login", async (request, reply) => {
      const body = parse(z.object({ email, code: codeSchema, team_id: uuid.optional() }), request.body);
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
    });

    app.post("/default-agent-key", async (request, reply) => {
      const caller = requireUser(await callerOf(deps, request));
      const body = parse(z.object({ team_id: uuid }), request.body);
      if (!(await memberRole(deps.pool, body.team_id, caller.userId))) throw notFound("team");
      const existing = await defaultAgentKey(deps.pool, body.team_id);
      if (existing) return reply.code(200).send({ secret: existing.secret, created: false });
      const key = await createAgentKey(deps, { teamId: body.team_id, userId: caller.userId, name: "Default agent key" });
      return reply.code(201).send({ secret: key.secret, created: true });
    });

    app.post("/logout", async (_request, reply) => {
      reply.clearCookie("token", cookieOptions);
      return { success: true };
    });

    app.get("/whoami", async (request) => {
      const caller = requirePrincipal(await callerOf(deps, request));
      if (caller.kind === "key") {
        const team = await activeTeam(deps.pool, caller.teamId);
        return {
          type: "api_key",
          key_type: caller.keyType,
          team: team ? { id: team.id, name: team.name, slug: team.slug } : null,
          permissions: caller.permissions,
        };
      }
      return { type: "user", email: caller.email, teams: await teamsOfUser(deps.pool, caller.userId) };
    });

    app.get("/teams", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      return { teams: await teamsOfUser(deps.pool, caller.userId) };
    });

    app.get("/me", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const user = await userById(deps.pool, caller.userId);
      if (!user) throw notFound("user");
      return { user, teams: await teamsOfUser(deps.pool, caller.userId) };
    });

    app.patch("/me", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const body = parse(z.object({ name: z.string().trim().min(1).max(100) }), request.body);
      await runCommand(deps, {
        aggregate: "user",
        id: caller.userId,
        actor: { type: "user", id: caller.userId },
        decide: async () => {
          const user = await userById(deps.pool, caller.userId);
          if (!user) throw notFound("user");
          if (user.name === body.name) return [];
          const teamIds = (await teamsOfUser(deps.pool, caller.userId)).map((team) => team.id);
          return [{ type: "UserRenamed", v: 1, user_id: user.id, name: body.name, previous_name: user.name, team_ids: teamIds }];
        },
      });
      return { user: await userById(deps.pool, caller.userId) };
    });
  };
}
