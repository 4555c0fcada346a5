import type { DomainEvent } from "../events.ts";
import type { Decider } from "../shared/decider.ts";
import { conflict, forbidden, invalid, notFound } from "../shared/errors.ts";
import { ROLE_LEVEL, atLeast, type Role } from "../shared/roles.ts";

/**
 * A team as its decisions need it. `status` is "new" before the team's creation (only CreateTeam
 * applies then) and "deleted" after its deletion (nothing applies: a deleted team is not found).
 */
export type TeamState = {
  teamId: string;
  status: "new" | "active" | "deleted";
  name: string;
  members: ReadonlyMap<string, Role>;
  /** Active agent keys of the team with who created them (revoked with their creator on request). */
  agentKeys: readonly { keyId: string; createdBy: string | null }[];
};

export type TeamCommand =
  /** `forNewUser`: the default team made at sign-up, whose audit log also records the user's creation. */
  | { type: "CreateTeam"; teamId: string; name: string; slug: string; ownerId: string; forNewUser: boolean }
  | { type: "RenameTeam"; actorId: string; name: string }
  /**
   * `actorTeamCount`: how many active teams the actor belongs to, this one included. Counted
   * across teams by the caller, which lets one deletion of the actor's run at a time.
   */
  | { type: "DeleteTeam"; actorId: string; actorTeamCount: number }
  | { type: "ChangeRole"; actorId: string; userId: string; role: Role }
  | { type: "RemoveMember"; actorId: string; userId: string; revokeAgentKeys: boolean };

function activeTeam(state: TeamState): TeamState {
  if (state.status !== "active") throw notFound("team");
  return state;
}

/** The actor's role; a team the actor is not in is not found (its existence is not revealed). */
function roleOf(state: TeamState, userId: string): Role {
  const role = activeTeam(state).members.get(userId);
  if (!role) throw notFound("team");
  return role;
}

function requireRole(state: TeamState, actorId: string, minimum: Role): Role {
  const role = roleOf(state, actorId);
  if (!atLeast(role, minimum)) throw forbidden(`requires the ${minimum} role`);
  return role;
}

const ownerCount = (state: TeamState): number => [...state.members.values()].filter((role) => role === "owner").length;

/** The team with its creator as owner. */
function create(state: TeamState, command: Extract<TeamCommand, { type: "CreateTeam" }>): DomainEvent[] {
  if (state.status !== "new") throw conflict("the team already exists");
  return [
    {
      type: "TeamCreated",
      v: 1,
      team_id: command.teamId,
      name: command.name,
      slug: command.slug,
      created_by: command.ownerId,
      for_new_user: command.forNewUser,
    },
    { type: "MemberAdded", v: 1, team_id: command.teamId, user_id: command.ownerId, role: "owner" },
  ];
}

/**
 * Only owners promote to owner; admins change only members of a lower role (up to admin); nobody
 * changes their own role; the last owner cannot be demoted.
 */
function changeRole(state: TeamState, actorId: string, targetId: string, role: Role): DomainEvent[] {
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
function removeMember(state: TeamState, actorId: string, targetId: string, revokeAgentKeys: boolean): DomainEvent[] {
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
  const revoked = revokeAgentKeys ? state.agentKeys.filter((key) => key.createdBy === targetId).map((key) => key.keyId) : [];
  return [{ type: "MemberRemoved", v: 1, team_id: state.teamId, user_id: targetId, role: targetRole, revoked_agent_key_ids: revoked }];
}

function decide(state: TeamState, command: TeamCommand): DomainEvent[] {
  switch (command.type) {
    case "CreateTeam":
      return create(state, command);
    case "RenameTeam":
      requireRole(state, command.actorId, "admin");
      if (command.name === state.name) return [];
      return [{ type: "TeamRenamed", v: 1, team_id: state.teamId, name: command.name, previous_name: state.name }];
    case "DeleteTeam":
      requireRole(state, command.actorId, "owner");
      // A user always keeps a team to work in.
      if (command.actorTeamCount <= 1) throw invalid("cannot delete your only team");
      return [{ type: "TeamDeleted", v: 1, team_id: state.teamId }];
    case "ChangeRole":
      return changeRole(state, command.actorId, command.userId, command.role);
    case "RemoveMember":
      return removeMember(state, command.actorId, command.userId, command.revokeAgentKeys);
  }
}

const withMember = (state: TeamState, userId: string, role: Role): TeamState => ({ ...state, members: new Map(state.members).set(userId, role) });

function evolve(state: TeamState, fact: DomainEvent): TeamState {
  switch (fact.type) {
    case "TeamCreated":
      return { teamId: fact.team_id, status: "active", name: fact.name, members: new Map(), agentKeys: [] };
    case "TeamRenamed":
      return { ...state, name: fact.name };
    case "TeamDeleted":
      // The directory drops the members and revokes the keys of a deleted team.
      return { ...state, status: "deleted", members: new Map(), agentKeys: [] };
    case "MemberAdded":
    case "MemberRoleChanged":
      return withMember(state, fact.user_id, fact.role);
    case "MemberRemoved": {
      const members = new Map(state.members);
      members.delete(fact.user_id);
      return { ...state, members, agentKeys: state.agentKeys.filter((key) => !fact.revoked_agent_key_ids.includes(key.keyId)) };
    }
    case "ApiKeyCreated":
      if (fact.key_type !== "agent") return state;
      return { ...state, agentKeys: [...state.agentKeys, { keyId: fact.key_id, createdBy: fact.created_by }] };
    case "ApiKeyDeleted":
      return { ...state, agentKeys: state.agentKeys.filter((key) => key.keyId !== fact.key_id) };
    default:
      return state;
  }
}

/** A team's name and membership: roles ranked owner > admin > member, never without an owner. */
export const teamDecider: Decider<TeamState, TeamCommand, DomainEvent> = {
  initialState: { teamId: "", status: "new", name: "", members: new Map(), agentKeys: [] },
  decide,
  evolve,
};
