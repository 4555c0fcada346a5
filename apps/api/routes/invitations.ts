import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { hashInvitationToken, invitationsDecider, refuseClosed } from "../../../domain/invitations/decider.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { newId, randomToken } from "../../../domain/shared/ids.ts";
import { invitationById, invitationByTokenHash, pendingInvitations, teamInvitations, toInvitation } from "../../../projections/directory/invitation-queries.ts";
import { PUBLIC, SESSION, teamMember } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { deletedBody, errorBody, TAGS } from "../schemas/common.ts";
import {
  acceptBody,
  acceptedInvitationBody,
  exampleInvitation,
  inviteBody,
  invitationBody,
  invitationsBody,
  publicInvitationBody,
  teamInvitationParams,
  teamInvitationsParams as params,
  tokenParams,
} from "../schemas/invitations.ts";
import { teamCommand } from "../team-command.ts";

const tags = [TAGS.invitations];
/**
 * The plugin admits members of the team the path names before the input is read (an outsider gets
 * 404 whatever they send); the invitations decider judges who may invite or revoke.
 */
const MEMBER = teamMember("member");

/** Every command on invitations is decided on the team's subject, which orders its membership. */
const onInvitations = (deps: ApiDeps) => ({ decider: invitationsDecider, load: (teamId: string) => teamInvitations(deps.pool, teamId) });

/** Routes under /v1/teams/:teamId/invitations. */
export function teamInvitationRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  const decided = onInvitations(deps);
  return async (app) => {
    app.post(
      "/",
      {
        schema: {
          summary: "Invite someone to the team",
          description: "Admins invite; only owners invite owners. Re-inviting an email with an open invitation sends it again with a new token and a fresh 7-day expiry.",
          tags,
          params,
          body: inviteBody,
          response: { 201: invitationBody, 409: errorBody },
          examples: { body: { email: "grace@example.com", role: "member" }, 201: exampleInvitation },
        },
        config: { access: MEMBER },
      },
      async (request, reply) => {
        const { teamId } = request.params;
        const { email, role } = request.body;
        const command = { type: "Invite", actorId: request.user.userId, invitationId: newId(), email, role, token: randomToken(32), now: new Date() } as const;
        const { facts } = await teamCommand(deps, request.caller, { ...decided, teamId, command });
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
      { schema: { summary: "List the team's pending invitations", tags, params, response: { 200: invitationsBody } }, config: { access: MEMBER } },
      async (request) => ({ invitations: (await pendingInvitations(deps.pool, request.params.teamId)).map(toInvitation) }),
    );

    app.delete(
      "/:invitationId",
      {
        schema: { summary: "Revoke an invitation", description: "Admins only; the invitation is deleted.", tags, params: teamInvitationParams, response: { 200: deletedBody } },
        config: { access: MEMBER },
      },
      async (request) => {
        const { teamId, invitationId } = request.params;
        await teamCommand(deps, request.caller, { ...decided, teamId, command: { type: "Revoke", actorId: request.user.userId, invitationId } });
        return { deleted: true as const };
      },
    );
  };
}

/** Routes under /v1/invites: the public view by token and accepting. */
export function inviteRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  const decided = onInvitations(deps);

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
          params: tokenParams,
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
          body: acceptBody,
          response: { 200: acceptedInvitationBody, 404: errorBody, 409: errorBody, 410: errorBody },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const { token } = request.body;
        const found = await byToken(token);
        const { userId, email: userEmail } = request.user;
        // The invitee is not a member yet: the decider checks the token and the email, not a role.
        await teamCommand(deps, request.caller, { ...decided, teamId: found.team_id, command: { type: "Accept", token, userId, userEmail, now: new Date() } });
        return { team_id: found.team_id, team_name: found.team_name, role: found.role };
      },
    );
  };
}
