import { forbidden, invalid, notFound } from "../shared/errors.ts";
import { ROLE_LEVEL, atLeast, type Role } from "../shared/roles.ts";
import type { DomainEvent } from "../events.ts";

export type TeamState = {
  teamId: string;
  name: string;
  members: Map<string, Role>;
  /** Active agent keys of the team with who created them (for revoke on removal). */
  agentKeys: { keyId: string; createdBy: string | null }[];
};

function roleOf(state: TeamState, userId: string): Role {
  const role = state.members.get(userId);
  if (!role) throw notFound("team");
  return role;
}

function ownerCount(state: TeamState): number {
  return [...state.members.values()].filter((role) => role === "owner").length;
}

export function requireRole(state: TeamState, actorId: string, minimum: Role): Role {
  const role = roleOf(state, actorId);
  if (!atLeast(role, minimum)) throw forbidden(`requires the ${minimum} role`);
  return role;
}

export function renameTeam(state: TeamState, actorId: string, name: string): DomainEvent[] {
  requireRole(state, actorId, "admin");
  if (name === state.name) return [];
  return [{ type: "TeamRenamed", v: 1, team_id: state.teamId, name, previous_name: state.name }];
}

export function deleteTeam(state: TeamState, actorId: string, actorTeamCount: number): DomainEvent[] {
  requireRole(state, actorId, "owner");
  if (actorTeamCount <= 1) throw invalid("cannot delete your only team");
  return [{ type: "TeamDeleted", v: 1, team_id: state.teamId }];
}

/**
 * Only owners promote to owner; admins change only members of a lower role (up to admin); nobody changes their own role;
 * the last owner cannot be demoted.
 */
export function changeRole(state: TeamState, actorId: string, targetId: string, role: Role): DomainEvent[] {
  const actorRole = requireRole(state, actorId, "admin");
  const targetRole = state.members.get(targetId);
  if (!targetRole) throw notFound("member");
  if (targetId === actorId) throw invalid("you cannot change your own role");
  if (role === "owner" && actorRole !== "owner") throw forbidden("only owners can promote to owner");
  if (actorRole !== "owner" && ROLE_LEVEL[targetRole] >= ROLE_LEVEL[actorRole]) {
    throw forbidden("admins can only manage members of a lower role");
  }
  if (targetRole === role) return [];
  if (targetRole === "owner" && ownerCount(state) <= 1) throw invalid("the last owner cannot be demoted");
  return [{ type: "MemberRoleChanged", v: 1, team_id: state.teamId, user_id: targetId, role, previous_role: targetRole }];
}

/** Owners remove anyone, admins only lower roles, anyone may leave; the sole owner cannot. */
export function removeMember(state: TeamState, actorId: string, targetId: string, revokeAgentKeys: boolean): DomainEvent[] {
  const actorRole = roleOf(state, actorId);
  const targetRole = state.members.get(targetId);
  if (!targetRole) throw notFound("member");
  if (targetId !== actorId) {
    if (!atLeast(actorRole, "admin")) throw forbidden("requires the admin role");
    if (actorRole !== "owner" && ROLE_LEVEL[targetRole] >= ROLE_LEVEL[actorRole]) {
      throw forbidden("admins can only remove members of a lower role");
    }
  }
  if (targetRole === "owner" && ownerCount(state) <= 1) {
    throw invalid(targetId === actorId ? "the sole owner cannot leave the team" : "the last owner cannot be removed");
  }
  const revoked = revokeAgentKeys
    ? state.agentKeys.filter((key) => key.createdBy === targetId).map((key) => key.keyId)
    : [];
  return [
    { type: "MemberRemoved", v: 1, team_id: state.teamId, user_id: targetId, role: targetRole, revoked_agent_key_ids: revoked },
  ];
}
