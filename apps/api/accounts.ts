import { randomBytes } from "node:crypto";
import { keysDecider, keySecret } from "../../domain/keys/decider.ts";
import { conflict, notFound } from "../../domain/shared/errors.ts";
import { newId, randomToken } from "../../domain/shared/ids.ts";
import { teamDecider } from "../../domain/teams/decider.ts";
import { userDecider } from "../../domain/users/decider.ts";
import { teamKeys } from "../../projections/directory/key-queries.ts";
import { memberRole, teamState, teamsOfUser, userByEmail, userById, userState, type UserRow } from "../../projections/directory/queries.ts";
import { lastSequenceOn } from "../../streams/last-sequence.ts";
import { release, reservationKey, reserve, takeOverAbandoned } from "../../streams/reservations.ts";
import { handleCommand } from "./command-handler.ts";
import type { ApiDeps } from "./deps.ts";

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
  await createDefaultTeam(deps, userId, name, true);
  return { user, isNew: true };
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
  await createDefaultTeam(deps, user.id, user.name, false);
}

function createDefaultTeam(deps: ApiDeps, userId: string, name: string, forNewUser: boolean) {
  const slug = `${slugify(name)}-${randomBytes(3).toString("hex")}`;
  return createTeam(deps, { userId, name: `${name}'s team`, slug, forNewUser });
}

/**
 * Creates a team with `userId` as its owner. The slug is reserved in KV before the append.
 * @throws DomainError conflict when an active team already has the slug
 */
export async function createTeam(
  deps: ApiDeps,
  input: { userId: string; name: string; slug: string; forNewUser: boolean },
): Promise<string> {
  const teamId = newId();
  const slugKey = reservationKey("team-slug", input.slug);
  const claim = await reserve(deps.log, slugKey, teamId);
  if (!claim.reserved) throw conflict("a team with this slug already exists");
  try {
    await handleCommand(deps, {
      aggregate: { type: "team", id: teamId },
      decider: teamDecider,
      load: () => teamState(deps.pool, teamId),
      command: { type: "CreateTeam", teamId, name: input.name, slug: input.slug, ownerId: input.userId, forNewUser: input.forNewUser },
      actor: { type: "user", id: input.userId },
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
 * Creates an agent key of `userId` in the team, with every agent permission. Returns the key id
 * and secret. Decided on the team's subject: a removal racing this command makes the append fail,
 * and the membership check runs again on the new state.
 * @throws DomainError not_found "team" when the user is not in the team
 */
export async function createAgentKey(deps: ApiDeps, input: { teamId: string; userId: string; name: string }) {
  const keyId = newId();
  const secret = keySecret("agent", randomToken(24));
  await handleCommand(deps, {
    aggregate: { type: "team", id: input.teamId },
    decider: keysDecider,
    load: async () => {
      if (!(await memberRole(deps.pool, input.teamId, input.userId))) throw notFound("team");
      return teamKeys(deps.pool, input.teamId);
    },
    // No permissions named: an agent key gets the type's defaults, every agent permission.
    command: { type: "CreateKey", keyId, secret, keyType: "agent", appId: null, name: input.name, createdBy: input.userId, expiresAt: null },
    actor: { type: "user", id: input.userId },
  });
  return { keyId, secret };
}
