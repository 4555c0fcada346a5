import { createHash } from "node:crypto";
import type { DomainEvent } from "../events.ts";
import { conflict, forbidden, gone, notFound } from "../shared/errors.ts";
import { atLeast, type Role } from "../shared/roles.ts";

export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export const hashInvitationToken = (token: string) => createHash("sha256").update(token).digest("hex");

export type PendingInvitation = { id: string; email: string; role: Role; acceptedAt: string | null; expiresAt: string };

export type InviteCommand = {
  teamId: string;
  actorId: string;
  actorRole: Role;
  email: string;
  role: Role;
  token: string;
  invitationId: string;
  now: Date;
};

/**
 * Invites an email, or re-sends the pending invitation of that email with a new token and a fresh
 * 7-day expiry. Only admins invite, only owners invite owners, members cannot be invited again.
 */
export function invite(command: InviteCommand, existing: PendingInvitation | null, alreadyMember: boolean): DomainEvent[] {
  if (!atLeast(command.actorRole, "admin")) throw forbidden("requires the admin role");
  if (command.role === "owner" && command.actorRole !== "owner") throw forbidden("only owners can invite owners");
  if (alreadyMember) throw conflict("this person is already a member of the team");
  const fields = {
    v: 1 as const,
    team_id: command.teamId,
    email: command.email,
    role: command.role,
    token: command.token,
    token_hash: hashInvitationToken(command.token),
    invited_by: command.actorId,
    expires_at: new Date(command.now.getTime() + INVITATION_LIFETIME_MS).toISOString(),
  };
  if (existing && existing.acceptedAt === null) {
    return [{ type: "InvitationResent", invitation_id: existing.id, ...fields }];
  }
  return [{ type: "InvitationCreated", invitation_id: command.invitationId, ...fields }];
}

export type AcceptCommand = { userId: string; userEmail: string; now: Date };

/** Accepting needs a live invitation addressed to the caller's email. */
export function accept(
  invitation: PendingInvitation & { teamId: string },
  command: AcceptCommand,
  alreadyMember: boolean,
): DomainEvent[] {
  if (invitation.acceptedAt !== null) throw gone("invitation already accepted");
  if (Date.parse(invitation.expiresAt) <= command.now.getTime()) throw gone("invitation expired");
  if (invitation.email !== command.userEmail.toLowerCase()) throw forbidden("this invitation was sent to another email address");
  if (alreadyMember) throw conflict("you are already a member of this team");
  return [
    {
      type: "InvitationAccepted",
      v: 1,
      invitation_id: invitation.id,
      team_id: invitation.teamId,
      user_id: command.userId,
      email: invitation.email,
      role: invitation.role,
    },
    { type: "MemberAdded", v: 1, team_id: invitation.teamId, user_id: command.userId, role: invitation.role },
  ];
}

export function revoke(invitation: PendingInvitation | null, teamId: string, actorRole: Role): DomainEvent[] {
  if (!atLeast(actorRole, "admin")) throw forbidden("requires the admin role");
  if (!invitation) throw notFound("invitation");
  return [{ type: "InvitationRevoked", v: 1, invitation_id: invitation.id, team_id: teamId, email: invitation.email }];
}
