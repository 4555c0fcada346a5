import { randomBytes } from "node:crypto";
import { keysDecider, keySecret } from "../../domain/keys/decider.ts";
import { conflict, invalid, notFound } from "../../domain/shared/errors.ts";
import { newId, randomToken } from "../../domain/shared/ids.ts";
import { teamDecider } from "../../domain/teams/decider.ts";
import { userDecider } from "../../domain/users/decider.ts";
import { teamKeys } from "../../projections/directory/key-queries.ts";
import { activeTeam, defaultAgentKey, teamState, teamsOfUser, userByEmail, userById, userState, type UserRow } from "../../projections/directory/queries.ts";
import { lastSequenceOn } from "../../streams/last-sequence.ts";
import { release, reservationKey, reserve, takeOverAbandoned } from "../../streams/reservations.ts";
import type { Rule } from "./auth/access.ts";
import type { Principal, UserPrincipal } from "./auth/principal.ts";
import { handleCommand } from "../commands/command-handler.ts";
import type { ApiDeps } from "./deps.ts";
import { teamCommand } from "./team-command.ts";

/** A member of the team, whatever their role: who may hold an agent key of it. */
const MEMBER: Rule = { permission: "", role: "member", userOnly: true };

/** A user as the author of the commands made for them at sign-in, before any session exists. */
export const asCaller = (user: Pick<UserRow, "id" | "email">): UserPrincipal => ({ kind: "user", userId: user.id, email: user.email });

const slugify = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40) || "team";

/**
 * Finds the user of `email`, creating the account and its default team when the email is new.
 * The email is claimed in KV first, so two concurrent sign-ups of one email create one user.
 */
export async function findOrRegisterUser(deps: ApiDeps, email: string): Promise<{ user: UserRow; isNew: boolean }> {
  const existing = await userByEmail(deps.pool, email);
  if (existing) {
    await ensureHasTeam(deps, existing);
    return { user: existing, isNew: false };
  }
  const userId = newId();
  const emailKey = reservationKey("user-email", email);
  const claim = await reserve(deps.log, emailKey, userId);
  if (!claim.reserved) {
    if (!(await takeOverAbandoned(deps.log, emailKey, userId, (owner) => aggregateOnLog(deps, "user", owner)))) {
      // Another request registered this email a moment ago: wait for its fact to become visible.
      const other = await waitForUser(deps, claim.owner);
      return { user: other, isNew: false };
    }
  }
  const name = email.split("@")[0]!;
  await handleCommand(deps, {
    aggregate: { type: "user", id: userId },
    decider: userDecider,
    load: () => userState(deps.pool, userId),
    command: { type: "RegisterUser", userId, email, name },
    actor: { type: "user", id: userId },
  });
  const user = (await userById(deps.pool, userId))!;
  await createDefaultTeam(deps, user, true);
  return { user, isNew: true };
}

/** The user's teams as sign-in answers them: each with its default agent key when it has one. */
export async function signedInTeams(deps: ApiDeps, userId: string) {
  return Promise.all(
    (await teamsOfUser(deps.pool, userId)).map(async (team) => {
      const key = await defaultAgentKey(deps.pool, team.id);
      return key ? { ...team, default_agent_key: key.secret } : team;
    }),
  );
}

/**
 * The team an agent-login creates its key in: `teamId` when the user is in it, else the user's
 * only team.
 * @throws DomainError not_found "team" for a team the user is not in; invalid, listing the teams, for a user of several teams without `teamId`
 */
export async function agentLoginTeam(deps: ApiDeps, userId: string, teamId: string | undefined) {
  const teams = await teamsOfUser(deps.pool, userId);
  if (teamId !== undefined) {
    const team = teams.find((candidate) => candidate.id === teamId);
    if (!team) throw notFound("team");
    return team;
  }
  if (teams.length !== 1) throw invalid("you belong to several teams: pass team_id", { teams });
  return teams[0]!;
}

/** Who the credentials belong to: a user and their teams, or an API key with its team and permissions. */
export async function whoAmI(deps: ApiDeps, caller: Principal) {
  if (caller.kind === "user") return { type: "user" as const, email: caller.email, teams: [...(await teamsOfUser(deps.pool, caller.userId))] };
  const team = await activeTeam(deps.pool, caller.teamId);
  return {
    type: "api_key" as const,
    key_type: caller.keyType,
    team: team ? { id: team.id, name: team.name, slug: team.slug } : null,
    permissions: caller.permissions,
  };
}

/** Renames the user, who is the only one who may (the caller's own account). */
export async function renameUser(deps: ApiDeps, userId: string, name: string): Promise<void> {
  await handleCommand(deps, {
    aggregate: { type: "user", id: userId },
    decider: userDecider,
    load: () => userState(deps.pool, userId),
    command: { type: "RenameUser", name },
    actor: { type: "user", id: userId },
  });
}

/** Whether any fact of the aggregate is on the DOMAIN stream (its creation was stored). */
const aggregateOnLog = async (deps: ApiDeps, aggregate: string, id: string) =>
  (await lastSequenceOn(deps.log, deps.log.names.stream("DOMAIN"), deps.log.names.aggregateSubject(aggregate, id))) > 0;

async function waitForUser(deps: ApiDeps, userId: string): Promise<UserRow> {
  const deadline = Date.now() + deps.config.readYourWritesTimeoutMs;
  while (Date.now() < deadline) {
    const user = await userById(deps.pool, userId);
    if (user) return user;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw conflict("this account is being created by another request; retry");
}

/**
 * A user always has a team to work in: a sign-up interrupted between its two facts, or a user
 * removed from every team, gets a fresh default team at the next sign-in.
 */
async function ensureHasTeam(deps: ApiDeps, user: UserRow): Promise<void> {
  const teams = await teamsOfUser(deps.pool, user.id);
  if (teams.length > 0) return;
  await createDefaultTeam(deps, user, false);
}

function createDefaultTeam(deps: ApiDeps, user: UserRow, forNewUser: boolean) {
  const slug = `${slugify(user.name)}-${randomBytes(3).toString("hex")}`;
  return createTeam(deps, { caller: asCaller(user), name: `${user.name}'s team`, slug, forNewUser });
}

/**
 * Creates a team with `caller` as its owner. The slug is reserved in KV before the append.
 * @throws DomainError conflict when an active team already has the slug
 */
export async function createTeam(
  deps: ApiDeps,
  input: { caller: UserPrincipal; name: string; slug: string; forNewUser: boolean },
): Promise<string> {
  const teamId = newId();
  const slugKey = reservationKey("team-slug", input.slug);
  const claim = await reserve(deps.log, slugKey, teamId);
  if (!claim.reserved) throw conflict("a team with this slug already exists");
  try {
    await teamCommand(deps, input.caller, {
      teamId,
      decider: teamDecider,
      load: (id) => teamState(deps.pool, id),
      command: { type: "CreateTeam", teamId, name: input.name, slug: input.slug, ownerId: input.caller.userId, forNewUser: input.forNewUser },
    });
  } catch (error) {
    // Keep the slug when the fact was stored and only the read model lagged (a 503 after the append).
    const stored = await aggregateOnLog(deps, "team", teamId).catch(() => true);
    if (!stored) await release(deps.log, slugKey, teamId).catch(() => undefined);
    throw error;
  }
  return teamId;
}

/**
 * Deletes a team of `caller` (the decider admits owners only) and frees its slug. A user's
 * deletions take turns: "not your only team" is counted in the directory, which a deletion still
 * in flight has not changed yet, so two parallel deletions of a user's last two teams would both
 * see two. The turn is a reservation held across API instances until the deletion is projected (a
 * command answers only then); a second deletion meanwhile gets 409. A reservation left by a
 * crashed instance is taken over after 30 s.
 * @throws DomainError conflict while another deletion of the caller's runs; those of the decider
 */
export async function deleteTeam(deps: ApiDeps, caller: UserPrincipal, teamId: string): Promise<void> {
  const team = await activeTeam(deps.pool, teamId);
  const turn = reservationKey("team-deletion", caller.userId);
  const held = (await reserve(deps.log, turn, teamId)).reserved || (await takeOverAbandoned(deps.log, turn, teamId, async () => false));
  if (!held) throw conflict("another deletion of one of your teams is in progress; retry when it is done");
  try {
    const actorTeamCount = (await teamsOfUser(deps.pool, caller.userId)).length;
    await teamCommand(deps, caller, {
      teamId,
      decider: teamDecider,
      load: (id) => teamState(deps.pool, id),
      command: { type: "DeleteTeam", actorId: caller.userId, actorTeamCount },
    });
  } finally {
    await release(deps.log, turn, teamId);
  }
  // The slug is free again once the deletion is stored.
  if (team) await release(deps.log, reservationKey("team-slug", team.slug), teamId);
}

/**
 * Creates an agent key of `caller` in the team, with every agent permission. Returns the key id
 * and secret. Decided on the team's subject: a removal racing this command makes the append fail,
 * and the membership check runs again on the new state.
 * @throws DomainError not_found "team" when the user is not in the team
 */
export async function createAgentKey(deps: ApiDeps, input: { teamId: string; caller: UserPrincipal; name: string }) {
  const keyId = newId();
  const secret = keySecret("agent", randomToken(24));
  const { caller } = input;
  await teamCommand(deps, caller, {
    teamId: input.teamId,
    decider: keysDecider,
    load: (teamId) => teamKeys(deps.pool, teamId),
    // No permissions named: an agent key gets the type's defaults, every agent permission.
    command: { type: "CreateKey", keyId, secret, keyType: "agent", appId: null, name: input.name, createdBy: caller.userId, expiresAt: null },
    access: { rule: MEMBER, resource: "team" },
  });
  return { keyId, secret };
}
