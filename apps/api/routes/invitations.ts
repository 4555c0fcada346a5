import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { hashInvitationToken, invitationsDecider, refuseClosed, type InvitationCommand } from "../../../domain/invitations/decider.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { newId, randomToken } from "../../../domain/shared/ids.ts";
import { ROLES } from "../../../domain/shared/roles.ts";
import { invitationById, invitationByTokenHash, pendingInvitations, teamInvitations, toInvitation } from "../../../projections/directory/invitation-queries.ts";
import { memberRole } from "../../../projections/directory/queries.ts";
import { PUBLIC, SESSION } from "../auth/access.ts";
import { handleCommand } from "../command-handler.ts";
import type { ApiDeps } from "../deps.ts";
import { deletedBody } from "../schemas/common.ts";
import { acceptedInvitationBody, exampleInvitation, invitationBody, publicInvitationBody } from "../schemas/invitations.ts";
import { email, uuid } from "../validation.ts";

const params = z.object({ teamId: uuid });
const token = z.string().min(1).max(200);
const errorBody = z.object({ error: z.string() });
const tags = ["teams"];

/** A command on the invitations of `teamId`, decided on the team's subject: the decider checks the caller's role. */
const decideOnInvitations = (deps: ApiDeps, userId: string, teamId: string, command: InvitationCommand) =>
  handleCommand(deps, {
    aggregate: { type: "team", id: teamId },
    decider: invitationsDecider,
    load: () => teamInvitations(deps.pool, teamId),
    command,
    actor: { type: "user", id: userId },
  });

/** Routes under /v1/teams/:teamId/invitations. */
export function teamInvitationRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/",
      {
        schema: {
          summary: "Invite someone to the team",
          description: "Admins invite; only owners invite owners. Re-inviting an email with an open invitation sends it again with a new token and a fresh 7-day expiry.",
          tags,
          params,
          body: z.object({ email, role: z.enum(ROLES).default("member") }),
          response: { 201: invitationBody, 409: errorBody },
          examples: { body: { email: "ada@example.com", role: "member" }, 201: exampleInvitation },
        },
        config: { access: SESSION },
      },
      async (request, reply) => {
        const { teamId } = request.params;
        const { userId } = request.user;
        const { facts } = await decideOnInvitations(deps, userId, teamId, {
          type: "Invite",
          actorId: userId,
          invitationId: newId(),
          email: request.body.email,
          role: request.body.role,
          token: randomToken(32),
          now: new Date(),
        });
        // A re-send keeps the invitation's id: the fact names the one that was sent.
        const [sent] = facts;
        if (sent?.type !== "InvitationCreated" && sent?.type !== "InvitationResent") throw new Error("an invitation is decided without its fact");
        const row = await invitationById(deps.pool, teamId, sent.invitation_id);
        if (!row) throw notFound("invitation");
        return reply.code(201).send(toInvitation(row));
      },
    );

    app.get(
      "/",
      { schema: { summary: "List the team's pending invitations", tags, params, response: { 200: z.object({ invitations: z.array(invitationBody) }) } }, config: { access: SESSION } },
      async (request) => {
        const { teamId } = request.params;
        if (!(await memberRole(deps.pool, teamId, request.user.userId))) throw notFound("team");
        return { invitations: (await pendingInvitations(deps.pool, teamId)).map(toInvitation) };
      },
    );

    app.delete(
      "/:invitationId",
      {
        schema: { summary: "Revoke an invitation", description: "Admins only; the invitation is deleted.", tags, params: params.extend({ invitationId: uuid }), response: { 200: deletedBody } },
        config: { access: SESSION },
      },
      async (request) => {
        const { teamId, invitationId } = request.params;
        await decideOnInvitations(deps, request.user.userId, teamId, { type: "Revoke", actorId: request.user.userId, invitationId });
        return { deleted: true as const };
      },
    );
  };
}

/** Routes under /v1/invites: the public view by token and accepting. */
export function inviteRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  async function byToken(value: string) {
    const row = await invitationByTokenHash(deps.pool, hashInvitationToken(value));
    if (!row) throw notFound("invitation");
    return row;
  }

  return async (app) => {
    app.get(
      "/:token",
      {
        schema: {
          summary: "Read an invitation by its token",
          description: "What the invitee sees before accepting. 410 once accepted or expired.",
          tags,
          params: z.object({ token }),
          response: { 200: publicInvitationBody, 410: errorBody },
        },
        config: { access: PUBLIC },
      },
      async (request) => {
        const row = await byToken(request.params.token);
        refuseClosed({ accepted: row.accepted_at !== null, expiresAt: row.expires_at }, new Date());
        return {
          team_name: row.team_name,
          team_slug: row.team_slug,
          role: row.role,
          email: row.email,
          invited_by_name: row.inviter_name,
          expires_at: row.expires_at,
        };
      },
    );

    app.post(
      "/accept",
      {
        schema: {
          summary: "Accept an invitation",
          description: "The caller's email must be the invitation's. 410 once accepted or expired; 409 for a member of the team.",
          tags,
          body: z.object({ token }),
          response: { 200: acceptedInvitationBody, 404: errorBody, 409: errorBody, 410: errorBody },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const found = await byToken(request.body.token);
        const { userId, email: userEmail } = request.user;
        await decideOnInvitations(deps, userId, found.team_id, { type: "Accept", token: request.body.token, userId, userEmail, now: new Date() });
        return { team_id: found.team_id, team_name: found.team_name, role: found.role };
      },
    );
  };
}
