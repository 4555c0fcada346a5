import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { visibleSecret } from "../../../domain/keys/secret-visibility.ts";
import { conflict, forbidden, notFound } from "../../../domain/shared/errors.ts";
import { SLUG_PATTERN } from "../../../domain/shared/ids.ts";
import { ROLES, atLeast, type Role } from "../../../domain/shared/roles.ts";
import { teamDecider, type TeamCommand } from "../../../domain/teams/decider.ts";
import { pendingInvitations, toInvitation } from "../../../projections/directory/invitation-queries.ts";
import { activeTeam, agentKeysOfMember, memberRole, teamMembers, teamState, teamsOfUser } from "../../../projections/directory/queries.ts";
import { release, reservationKey, reserve, takeOverAbandoned } from "../../../streams/reservations.ts";
import { createTeam } from "../accounts.ts";
import { SESSION } from "../auth/access.ts";
import { handleCommand } from "../command-handler.ts";
import type { ApiDeps } from "../deps.ts";
import { deletedBody } from "../schemas/common.ts";
import { exampleTeam, memberAgentKeyBody, memberBody, teamBody, teamDetailBody } from "../schemas/teams.ts";
import { uuid } from "../validation.ts";

const teamName = z.string().trim().min(1).max(100);
const params = z.object({ teamId: uuid });
const memberParams = z.object({ teamId: uuid, userId: uuid });
const conflictBody = z.object({ error: z.string() });
const tags = ["teams"];

/** /v1/teams: teams and their members, for signed-in users only. Every change is a fact on the team's subject. */
export function teamRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  /** The caller's role in an active team; 404 for teams the caller is not in (no existence leak). */
  async function roleIn(teamId: string, userId: string, minimum: Role = "member"): Promise<Role> {
    const role = await memberRole(deps.pool, teamId, userId);
    if (!role) throw notFound("team");
    if (!atLeast(role, minimum)) throw forbidden(`requires the ${minimum} role`);
    return role;
  }

  /** Reads back after a write; a deletion racing in between answers 404 rather than null. */
  async function presentTeam(teamId: string) {
    const team = await activeTeam(deps.pool, teamId);
    if (!team) throw notFound("team");
    return team;
  }

  /** A command on the team, decided on its current state: the decider checks the caller's role. */
  const decideOnTeam = (userId: string, teamId: string, command: TeamCommand) =>
    handleCommand(deps, {
      aggregate: { type: "team", id: teamId },
      decider: teamDecider,
      load: () => teamState(deps.pool, teamId),
      command,
      actor: { type: "user", id: userId },
    });

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

  return async (app) => {
    app.post(
      "/",
      {
        schema: {
          summary: "Create a team",
          description: "The creator becomes its owner. The slug is unique among active teams.",
          tags,
          body: z.object({ name: teamName, slug: z.string().min(1).max(60).regex(SLUG_PATTERN, "must match ^[a-z0-9-]+$") }),
          response: { 201: teamBody, 409: conflictBody },
          examples: { body: { name: "Acme", slug: "acme" }, 201: exampleTeam },
        },
        config: { access: SESSION },
      },
      async (request, reply) => {
        const teamId = await createTeam(deps, { userId: request.user.userId, ...request.body, forNewUser: false });
        return reply.code(201).send(await presentTeam(teamId));
      },
    );

    app.get(
      "/:teamId",
      { schema: { summary: "Get a team with its members and pending invitations", tags, params, response: { 200: teamDetailBody } }, config: { access: SESSION } },
      async (request) => {
        const { teamId } = request.params;
        await roleIn(teamId, request.user.userId);
        const team = await presentTeam(teamId);
        return { ...team, members: [...(await teamMembers(deps.pool, teamId))], pending_invitations: (await pendingInvitations(deps.pool, teamId)).map(toInvitation) };
      },
    );

    app.patch(
      "/:teamId",
      {
        schema: { summary: "Rename a team", tags, params, body: z.object({ name: teamName }), response: { 200: teamBody }, examples: { body: { name: "Acme Inc." } } },
        config: { access: SESSION },
      },
      async (request) => {
        const { teamId } = request.params;
        await decideOnTeam(request.user.userId, teamId, { type: "RenameTeam", actorId: request.user.userId, name: request.body.name });
        return presentTeam(teamId);
      },
    );

    app.delete(
      "/:teamId",
      {
        schema: {
          summary: "Delete a team",
          description: "Owners only. Deletes its projects, apps, keys and definitions, and drops its members and invitations. A user's only team cannot be deleted.",
          tags,
          params,
          response: { 200: deletedBody, 409: conflictBody },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const { teamId } = request.params;
        const { userId } = request.user;
        await roleIn(teamId, userId);
        const team = await activeTeam(deps.pool, teamId);
        await oneDeletionAtATime(userId, teamId, async () => {
          const actorTeamCount = (await teamsOfUser(deps.pool, userId)).length;
          await decideOnTeam(userId, teamId, { type: "DeleteTeam", actorId: userId, actorTeamCount });
        });
        // The slug is free again once the deletion is stored.
        if (team) await release(deps.log, reservationKey("team-slug", team.slug), teamId);
        return { deleted: true as const };
      },
    );

    app.get(
      "/:teamId/members",
      { schema: { summary: "List a team's members", tags, params, response: { 200: z.object({ members: z.array(memberBody) }) } }, config: { access: SESSION } },
      async (request) => {
        const { teamId } = request.params;
        await roleIn(teamId, request.user.userId);
        return { members: [...(await teamMembers(deps.pool, teamId))] };
      },
    );

    app.get(
      "/:teamId/members/:userId/agent-keys",
      {
        schema: {
          summary: "List a member's agent keys in the team",
          description: "Members read their own; admins and owners anyone's.",
          tags,
          params: memberParams,
          response: { 200: z.object({ keys: z.array(memberAgentKeyBody) }) },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const { teamId, userId } = request.params;
        const caller = request.user;
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
      },
    );

    app.patch(
      "/:teamId/members/:userId",
      {
        schema: {
          summary: "Change a member's role",
          description: "Only owners promote to owner; admins change only members of a lower role; nobody changes their own role; the last owner stays.",
          tags,
          params: memberParams,
          body: z.object({ role: z.enum(ROLES) }),
          response: { 200: z.object({ user_id: z.string().uuid(), role: z.enum(ROLES) }) },
          examples: { body: { role: "admin" } },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const { teamId, userId } = request.params;
        const { role } = request.body;
        await decideOnTeam(request.user.userId, teamId, { type: "ChangeRole", actorId: request.user.userId, userId, role });
        return { user_id: userId, role };
      },
    );

    app.delete(
      "/:teamId/members/:userId",
      {
        schema: {
          summary: "Remove a member, or leave the team",
          description: "Owners remove anyone, admins only lower roles, anyone may leave; the sole owner cannot. `revoke_agent_keys=true` also deletes the member's agent keys of the team.",
          tags,
          params: memberParams,
          querystring: z.object({ revoke_agent_keys: z.enum(["true", "false"]).optional() }),
          response: { 200: z.object({ removed: z.literal(true), revoked_agent_keys: z.number().int() }) },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const { teamId, userId } = request.params;
        const revokeAgentKeys = request.query.revoke_agent_keys === "true";
        const { facts } = await decideOnTeam(request.user.userId, teamId, { type: "RemoveMember", actorId: request.user.userId, userId, revokeAgentKeys });
        const removed = facts.find((fact) => fact.type === "MemberRemoved");
        return { removed: true as const, revoked_agent_keys: removed?.type === "MemberRemoved" ? removed.revoked_agent_key_ids.length : 0 };
      },
    );
  };
}
