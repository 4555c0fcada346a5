import type { FastifyInstance } from "fastify";
import type { DomainEvent } from "../../../domain/events.ts";
import { visibleSecret } from "../../../domain/keys/secret-visibility.ts";
import { z } from "zod";
import { conflict, forbidden, notFound } from "../../../domain/shared/errors.ts";
import { SLUG_PATTERN } from "../../../domain/shared/ids.ts";
import { ROLES, atLeast, type Role } from "../../../domain/shared/roles.ts";
import { changeRole, deleteTeam, removeMember, renameTeam, type TeamState } from "../../../domain/teams/decide.ts";
import {
  activeTeam,
  agentKeysOfMember,
  loadTeamState,
  memberRole,
  teamMembers,
  teamsOfUser,
} from "../../../projections/directory/queries.ts";
import { pendingInvitations, toInvitation } from "../../../projections/directory/invitation-queries.ts";
import { release, reservationKey, reserve, takeOverAbandoned } from "../../../streams/reservations.ts";
import { createTeam } from "../accounts.ts";
import { callerOf, requireUser, type UserPrincipal } from "../auth/principal.ts";
import { teamCommand } from "../commands.ts";
import type { ApiDeps } from "../deps.ts";
import { parse, uuid } from "../validation.ts";

const teamName = z.string().trim().min(1).max(100);
const teamParams = z.object({ teamId: uuid });
const memberParams = z.object({ teamId: uuid, userId: uuid });

export function teamRoutes(deps: ApiDeps) {
  /** The caller's role in an active team; 404 for teams the caller is not in (no existence leak). */
  async function roleIn(teamId: string, userId: string, minimum: Role = "member"): Promise<Role> {
    const role = await memberRole(deps.pool, teamId, userId);
    if (!role) throw notFound("team");
    if (!atLeast(role, minimum)) throw forbidden(`requires the ${minimum} role`);
    return role;
  }

  async function stateOf(teamId: string): Promise<TeamState> {
    const state = await loadTeamState(deps.pool, teamId);
    if (!state) throw notFound("team");
    return state;
  }

  /** A team command decided on the team's current state. */
  const decideOnTeam = (caller: UserPrincipal, teamId: string, decide: (state: TeamState) => DomainEvent[] | Promise<DomainEvent[]>) =>
    teamCommand(deps, caller, teamId, async () => decide(await stateOf(teamId)));

  /**
   * "Not your only team" is counted in the directory, which a deletion still in flight has not
   * changed yet: two parallel deletions of a user's last two teams would both see two. So a user's
   * deletions take turns across API instances, through a reservation held until the deletion is
   * projected (a command answers only then); a second one meanwhile gets 409. A reservation left
   * by a crashed instance is taken over after 30 s.
   */
  const oneDeletionAtATime = async (userId: string, teamId: string, run: () => Promise<unknown>) => {
    const key = reservationKey("team-deletion", userId);
    const held = (await reserve(deps.log, key, teamId)).reserved || (await takeOverAbandoned(deps.log, key, teamId, async () => false));
    if (!held) throw conflict("another deletion of one of your teams is in progress; retry when it is done");
    try {
      await run();
    } finally {
      await release(deps.log, key, teamId);
    }
  };

  return async (app: FastifyInstance) => {
    app.post("/", async (request, reply) => {
      const caller = requireUser(await callerOf(deps, request));
      const body = parse(z.object({ name: teamName, slug: z.string().min(1).max(60).regex(SLUG_PATTERN, "must match ^[a-z0-9-]+$") }), request.body);
      const teamId = await createTeam(deps, { userId: caller.userId, name: body.name, slug: body.slug, forNewUser: false });
      return reply.code(201).send(await activeTeam(deps.pool, teamId));
    });

    app.get("/:teamId", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { teamId } = parse(teamParams, request.params, "params");
      await roleIn(teamId, caller.userId);
      const team = await activeTeam(deps.pool, teamId);
      if (!team) throw notFound("team");
      return { ...team, members: await teamMembers(deps.pool, teamId), pending_invitations: (await pendingInvitations(deps.pool, teamId)).map(toInvitation) };
    });

    app.patch("/:teamId", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { teamId } = parse(teamParams, request.params, "params");
      await roleIn(teamId, caller.userId);
      const body = parse(z.object({ name: teamName }), request.body);
      await decideOnTeam(caller, teamId, (state) => renameTeam(state, caller.userId, body.name));
      return activeTeam(deps.pool, teamId);
    });

    app.delete("/:teamId", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { teamId } = parse(teamParams, request.params, "params");
      await roleIn(teamId, caller.userId);
      const team = await activeTeam(deps.pool, teamId);
      await oneDeletionAtATime(caller.userId, teamId, () =>
        decideOnTeam(caller, teamId, async (state) => deleteTeam(state, caller.userId, (await teamsOfUser(deps.pool, caller.userId)).length)),
      );
      if (team) await release(deps.log, reservationKey("team-slug", team.slug), teamId);
      return { deleted: true };
    });

    app.get("/:teamId/members", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { teamId } = parse(teamParams, request.params, "params");
      await roleIn(teamId, caller.userId);
      return { members: await teamMembers(deps.pool, teamId) };
    });

    app.get("/:teamId/members/:userId/agent-keys", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { teamId, userId } = parse(memberParams, request.params, "params");
      const role = await roleIn(teamId, caller.userId, userId === caller.userId ? "member" : "admin");
      if (!(await memberRole(deps.pool, teamId, userId))) throw notFound("member");
      const keys = await agentKeysOfMember(deps.pool, teamId, userId);
      // The role check above already limits members to their own keys; the shared rule keeps it so if that check changes.
      const viewer = { userId: caller.userId, role };
      return {
        keys: keys.map(({ id, name, secret, permissions, created_at, created_by }) => ({
          id,
          name,
          secret: visibleSecret({ keyType: "agent", createdBy: created_by, secret }, viewer),
          permissions,
          created_at,
        })),
      };
    });

    app.patch("/:teamId/members/:userId", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { teamId, userId } = parse(memberParams, request.params, "params");
      await roleIn(teamId, caller.userId);
      const body = parse(z.object({ role: z.enum(ROLES) }), request.body);
      await decideOnTeam(caller, teamId, (state) => changeRole(state, caller.userId, userId, body.role));
      return { user_id: userId, role: body.role };
    });

    app.delete("/:teamId/members/:userId", async (request) => {
      const caller = requireUser(await callerOf(deps, request));
      const { teamId, userId } = parse(memberParams, request.params, "params");
      const query = parse(z.object({ revoke_agent_keys: z.enum(["true", "false"]).optional() }), request.query, "query");
      await roleIn(teamId, caller.userId);
      let revoked = 0;
      await decideOnTeam(caller, teamId, (state) => {
        const events = removeMember(state, caller.userId, userId, query.revoke_agent_keys === "true");
        revoked = events[0]?.type === "MemberRemoved" ? events[0].revoked_agent_key_ids.length : 0;
        return events;
      });
      return { removed: true, revoked_agent_keys: revoked };
    });
  };
}
