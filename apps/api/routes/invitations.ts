import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { accept, hashInvitationToken, invite, revoke } from "../../../domain/invitations/decide.ts";
import { gone, notFound } from "../../../domain/shared/errors.ts";
import { newId, randomToken } from "../../../domain/shared/ids.ts";
import { ROLES } from "../../../domain/shared/roles.ts";
import {
  invitationById,
  invitationByTokenHash,
  isMemberByEmail,
  openInvitationFor,
  pendingInvitations,
  toInvitation,
  type InvitationRow,
} from "../../../projections/directory/invitation-queries.ts";
import { memberRole } from "../../../projections/directory/queries.ts";
import { callerOf, requireUser } from "../auth/principal.ts";
import { teamCommand } from "../commands.ts";
import type { ApiDeps } from "../deps.ts";
import { email, parse, uuid } from "../validation.ts";

const pending = (row: InvitationRow) => ({ id: row.id, email: row.email, role: row.role, acceptedAt: row.accepted_at, expiresAt: row.expires_at });

/** Routes under /v1/teams/:teamId/invitations. */
export function teamInvitationRoutes(deps: ApiDeps) {
  async function callerRole(teamId: string, userId: string) {
    const role = await memberRole(deps.pool, teamId, userId);
    if (!role) throw notFound("team");
    return role;
  }

  return async (app: FastifyInstance) => {
    app.post("/", async (request, reply) => {
      const caller = requireUser(await callerOf(deps, request));
      const { teamId } = parse(z.object({ teamId: uuid }), request.params, "params");
      const body = parse(z.object({ email, role: z.enum(ROLES).default("member") }), request.body);
      const invitationId = newId();
      let decidedId = invitationId;
      await teamCommand(deps, caller, teamId, async () => {
        const actorRole = await callerRole(teamId, caller.userId);
        const existing = await openInvitationFor(deps.pool, teamId, body.email);
        const events = invite(
          { teamId, actorId: caller.userId, actorRole, email: body.email, role: body.role, token: randomToken(32), invitationId, now: new Date() },
          existing ? pending(existing) : null,
          await isMemberByEmail(deps.pool, teamId, body.email),
        );
        decidedId = existing?.id ?? invitationId;
        return events;
      });
      const row = await invitationById(deps.pool, teamId, decidedId);
      return reply.code(201).send(toInvitation(row!));
    });

    app.get("/", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { teamId } = parse(z.object({ teamId: uuid }), request.params, "params");
      await callerRole(teamId, caller.userId);
      return { invitations: (await pendingInvitations(deps.pool, teamId)).map(toInvitation) };
    });

    app.delete("/:invitationId", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { teamId, invitationId } = parse(z.object({ teamId: uuid, invitationId: uuid }), request.params, "params");
      await teamCommand(deps, caller, teamId, async () => {
        const actorRole = await callerRole(teamId, caller.userId);
        const row = await invitationById(deps.pool, teamId, invitationId);
        return revoke(row ? pending(row) : null, teamId, actorRole);
      });
      return { deleted: true };
    });
  };
}

/** Routes under /v1/invites: the public view by token and accepting. */
export function inviteRoutes(deps: ApiDeps) {
  async function byToken(token: string) {
    const row = await invitationByTokenHash(deps.pool, hashInvitationToken(token));
    if (!row) throw notFound("invitation");
    return row;
  }

  return async (app: FastifyInstance) => {
    app.get("/:token", async (request) => {
      const { token } = parse(z.object({ token: z.string().min(1).max(200) }), request.params, "params");
      const row = await byToken(token);
      if (row.accepted_at !== null) throw gone("invitation already accepted");
      if (Date.parse(row.expires_at) <= Date.now()) throw gone("invitation expired");
      return {
        team_name: row.team_name,
        team_slug: row.team_slug,
        role: row.role,
        email: row.email,
        invited_by_name: row.inviter_name,
        expires_at: row.expires_at,
      };
    });

    app.post("/accept", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const body = parse(z.object({ token: z.string().min(1).max(200) }), request.body);
      const found = await byToken(body.token);
      await teamCommand(deps, caller, found.team_id, async () => {
        const row = await byToken(body.token);
        const member = (await memberRole(deps.pool, row.team_id, caller.userId)) !== null;
        return accept({ ...pending(row), teamId: row.team_id }, { userId: caller.userId, userEmail: caller.email, now: new Date() }, member);
      });
      return { team_id: found.team_id, team_name: found.team_name, role: found.role };
    });
  };
}
