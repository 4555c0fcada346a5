import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { visibleSecret } from "../../../domain/keys/secret-visibility.ts";
import { forbidden, notFound } from "../../../domain/shared/errors.ts";
import { atLeast } from "../../../domain/shared/roles.ts";
import { teamDecider } from "../../../domain/teams/decider.ts";
import { pendingInvitations, toInvitation } from "../../../projections/directory/invitation-queries.ts";
import { activeTeam, agentKeysOfMember, memberRole, teamMembers, teamState } from "../../../projections/directory/queries.ts";
import { createTeam, deleteTeam } from "../accounts.ts";
import { SESSION, teamMember } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { deletedBody, errorBody, TAGS } from "../schemas/common.ts";
import { changeRoleBody, createTeamBody, exampleTeam, memberAgentKeysBody, memberParams, memberRemovedBody, membersBody } from "../schemas/teams.ts";
import { removeMemberQuery, renameTeamBody, roleChangedBody, teamBody, teamDetailBody, teamParams as params } from "../schemas/teams.ts";
import { teamCommand } from "../team-command.ts";

const tags = [TAGS.teams];
/**
 * The plugin admits members of the team the path names before the input is read (an outsider gets
 * 404 whatever they send); the team's decider judges the finer role rules on the team's state.
 */
const MEMBER = teamMember("member");

/** /v1/teams: teams and their members, for signed-in users only. Every change is a fact on the team's subject. */
export function teamRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  /** Reads back after a write; a deletion racing in between answers 404 rather than null. */
  async function presentTeam(teamId: string) {
    const team = await activeTeam(deps.pool, teamId);
    if (!team) throw notFound("team");
    return team;
  }

  /** Every command here is decided by the team's decider, which judges the caller's role on the team's state. */
  const onTeam = { decider: teamDecider, load: (teamId: string) => teamState(deps.pool, teamId) };

  return async (app) => {
    app.post(
      "/",
      {
        schema: {
          summary: "Create a team",
          description: "The creator becomes its owner. The slug is unique among active teams.",
          tags,
          body: createTeamBody,
          response: { 201: teamBody, 409: errorBody },
          examples: { body: { name: "Acme", slug: "acme" }, 201: exampleTeam },
        },
        config: { access: SESSION },
      },
      async (request, reply) => {
        const teamId = await createTeam(deps, { caller: request.user, ...request.body, forNewUser: false });
        return reply.code(201).send(await presentTeam(teamId));
      },
    );

    app.get(
      "/:teamId",
      { schema: { summary: "Get a team with its members and pending invitations", tags, params, response: { 200: teamDetailBody } }, config: { access: MEMBER } },
      async (request) => {
        const { teamId } = request.params;
        const team = await presentTeam(teamId);
        return { ...team, members: [...(await teamMembers(deps.pool, teamId))], pending_invitations: (await pendingInvitations(deps.pool, teamId)).map(toInvitation) };
      },
    );

    app.patch(
      "/:teamId",
      {
        schema: { summary: "Rename a team", description: "Admins and owners.", tags, params, body: renameTeamBody, response: { 200: teamBody }, examples: { body: { name: "Acme Inc." } } },
        config: { access: MEMBER },
      },
      async (request) => {
        const { teamId } = request.params;
        await teamCommand(deps, request.caller, { ...onTeam, teamId, command: { type: "RenameTeam", actorId: request.user.userId, name: request.body.name } });
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
          response: { 200: deletedBody, 409: errorBody },
        },
        config: { access: MEMBER },
      },
      async (request) => {
        await deleteTeam(deps, request.user, request.params.teamId);
        return { deleted: true as const };
      },
    );

    app.get(
      "/:teamId/members",
      { schema: { summary: "List a team's members", tags, params, response: { 200: membersBody } }, config: { access: MEMBER } },
      async (request) => ({ members: [...(await teamMembers(deps.pool, request.params.teamId))] }),
    );

    app.get(
      "/:teamId/members/:userId/agent-keys",
      {
        schema: {
          summary: "List a member's agent keys in the team",
          description: "Members read their own; admins and owners anyone's.",
          tags,
          params: memberParams,
          response: { 200: memberAgentKeysBody },
        },
        config: { access: MEMBER },
      },
      async (request) => {
        const { teamId, userId } = request.params;
        const caller = request.user;
        // Whose keys are asked for is part of the input, so the admin half of the rule is checked here.
        const role = await memberRole(deps.pool, teamId, caller.userId);
        if (userId !== caller.userId && !(role && atLeast(role, "admin"))) throw forbidden("requires the admin role");
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
          body: changeRoleBody,
          response: { 200: roleChangedBody },
          examples: { body: { role: "admin" } },
        },
        config: { access: MEMBER },
      },
      async (request) => {
        const { teamId, userId } = request.params;
        const { role } = request.body;
        await teamCommand(deps, request.caller, { ...onTeam, teamId, command: { type: "ChangeRole", actorId: request.user.userId, userId, role } });
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
          querystring: removeMemberQuery,
          response: { 200: memberRemovedBody },
        },
        config: { access: MEMBER },
      },
      async (request) => {
        const { teamId, userId } = request.params;
        const revokeAgentKeys = request.query.revoke_agent_keys === "true";
        const command = { type: "RemoveMember", actorId: request.user.userId, userId, revokeAgentKeys } as const;
        const { facts } = await teamCommand(deps, request.caller, { ...onTeam, teamId, command });
        const removed = facts.find((fact) => fact.type === "MemberRemoved");
        return { removed: true as const, revoked_agent_keys: removed?.type === "MemberRemoved" ? removed.revoked_agent_key_ids.length : 0 };
      },
    );
  };
}
