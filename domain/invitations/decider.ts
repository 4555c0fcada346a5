import { createHash } from "node:crypto";
import type { DomainEvent } from "../events.ts";
import type { Decider } from "../shared/decider.ts";
import { conflict, forbidden, gone, notFound } from "../shared/errors.ts";
import { atLeast, type Role } from "../shared/roles.ts";

export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

/** Invitations are looked up by the hash of their token: only the mailed link holds the token itself. */
export const hashInvitationToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** An invitation of the team; a revoked one is gone (the directory deletes it). */
export type InvitationSummary = { id: string; email: string; role: Role; tokenHash: string; accepted: boolean; expiresAt: string };

/**
 * The invitations of one team, in the order they were made, with its members. A member's email
 * is null where the facts folded do not say it (a team's creator); the read model knows them all.
 */
export type TeamInvitations = {
  teamId: string;
  active: boolean;
  members: ReadonlyMap<string, { role: Role; email: string | null }>;
  invitations: readonly InvitationSummary[];
};

/** Token, ids and time come from the caller so deciding stays pure. */
export type InvitationCommand =
  | { type: "Invite"; actorId: string; invitationId: string; email: string; role: Role; token: string; now: Date }
  | { type: "Revoke"; actorId: string; invitationId: string }
  | { type: "Accept"; token: string; userId: string; userEmail: string; now: Date };

/**
 * An accepted or expired invitation can no longer be used, nor shown by its token.
 * @throws DomainError gone
 */
export function refuseClosed(invitation: { accepted: boolean; expiresAt: string }, now: Date): void {
  if (invitation.accepted) throw gone("invitation already accepted");
  if (Date.parse(invitation.expiresAt) <= now.getTime()) throw gone("invitation expired");
}

/** The actor's role; a team the actor is not in is not found. */
function roleOf(state: TeamInvitations, actorId: string): Role {
  const role = state.active ? state.members.get(actorId)?.role : undefined;
  if (!role) throw notFound("team");
  return role;
}

/**
 * Invites an email, or re-sends the pending invitation of that email with a new token and a fresh
 * 7-day expiry. Only admins invite, only owners invite owners, members cannot be invited again.
 */
function invite(state: TeamInvitations, command: Extract<InvitationCommand, { type: "Invite" }>): DomainEvent[] {
  const actorRole = roleOf(state, command.actorId);
  if (!atLeast(actorRole, "admin")) throw forbidden("requires the admin role");
  if (command.role === "owner" && actorRole !== "owner") throw forbidden("only owners can invite owners");
  if ([...state.members.values()].some((member) => member.email === command.email)) throw conflict("this person is already a member of the team");
  const fields = {
    v: 1 as const,
    team_id: state.teamId,
    email: command.email,
    role: command.role,
    token: command.token,
    token_hash: hashInvitationToken(command.token),
    invited_by: command.actorId,
    expires_at: new Date(command.now.getTime() + INVITATION_LIFETIME_MS).toISOString(),
  };
  // The newest invitation of the email not accepted yet, expired or not: re-inviting revives it.
  const open = state.invitations.filter((invitation) => invitation.email === command.email && !invitation.accepted).at(-1);
  if (open) return [{ type: "InvitationResent", invitation_id: open.id, ...fields }];
  return [{ type: "InvitationCreated", invitation_id: command.invitationId, ...fields }];
}

/** Accepting needs a live invitation addressed to the caller's email. */
function accept(state: TeamInvitations, command: Extract<InvitationCommand, { type: "Accept" }>): DomainEvent[] {
  const tokenHash = hashInvitationToken(command.token);
  const invitation = state.active ? state.invitations.find((candidate) => candidate.tokenHash === tokenHash) : undefined;
  if (!invitation) throw notFound("invitation");
  refuseClosed(invitation, command.now);
  if (invitation.email !== command.userEmail.toLowerCase()) throw forbidden("this invitation was sent to another email address");
  if (state.members.has(command.userId)) throw conflict("you are already a member of this team");
  return [
    { type: "InvitationAccepted", v: 1, invitation_id: invitation.id, team_id: state.teamId, user_id: command.userId, email: invitation.email, role: invitation.role },
    { type: "MemberAdded", v: 1, team_id: state.teamId, user_id: command.userId, role: invitation.role },
  ];
}

function decide(state: TeamInvitations, command: InvitationCommand): DomainEvent[] {
  switch (command.type) {
    case "Invite":
      return invite(state, command);
    case "Revoke": {
      if (!atLeast(roleOf(state, command.actorId), "admin")) throw forbidden("requires the admin role");
      const invitation = state.invitations.find((candidate) => candidate.id === command.invitationId);
      if (!invitation) throw notFound("invitation");
      return [{ type: "InvitationRevoked", v: 1, invitation_id: invitation.id, team_id: state.teamId, email: invitation.email }];
    }
    case "Accept":
      return accept(state, command);
  }
}

const updateInvitation = (state: TeamInvitations, id: string, change: (invitation: InvitationSummary) => InvitationSummary): TeamInvitations => ({
  ...state,
  invitations: state.invitations.map((invitation) => (invitation.id === id ? change(invitation) : invitation)),
});

function evolve(state: TeamInvitations, fact: DomainEvent): TeamInvitations {
  switch (fact.type) {
    case "TeamCreated":
      return { teamId: fact.team_id, active: true, members: new Map(), invitations: [] };
    case "TeamDeleted":
      // The directory drops a deleted team's members and invitations.
      return { ...state, active: false, members: new Map(), invitations: [] };
    case "MemberAdded":
    case "MemberRoleChanged":
      return { ...state, members: new Map(state.members).set(fact.user_id, { role: fact.role, email: state.members.get(fact.user_id)?.email ?? null }) };
    case "MemberRemoved": {
      const members = new Map(state.members);
      members.delete(fact.user_id);
      return { ...state, members };
    }
    case "InvitationCreated":
      return {
        ...state,
        invitations: [
          ...state.invitations,
          { id: fact.invitation_id, email: fact.email, role: fact.role, tokenHash: fact.token_hash, accepted: false, expiresAt: fact.expires_at },
        ],
      };
    case "InvitationResent":
      return updateInvitation(state, fact.invitation_id, (invitation) => ({ ...invitation, role: fact.role, tokenHash: fact.token_hash, expiresAt: fact.expires_at }));
    case "InvitationRevoked":
      return { ...state, invitations: state.invitations.filter((invitation) => invitation.id !== fact.invitation_id) };
    case "InvitationAccepted": {
      // The acceptance says which email the new member has; the MemberAdded that follows keeps it.
      const accepted = updateInvitation(state, fact.invitation_id, (invitation) => ({ ...invitation, accepted: true }));
      return { ...accepted, members: new Map(state.members).set(fact.user_id, { role: fact.role, email: fact.email }) };
    }
    default:
      return state;
  }
}

/** A team's invitations: admins invite, owners invite owners, an invitation is accepted once by its addressee. */
export const invitationsDecider: Decider<TeamInvitations, InvitationCommand, DomainEvent> = {
  initialState: { teamId: "", active: false, members: new Map(), invitations: [] },
  decide,
  evolve,
};
