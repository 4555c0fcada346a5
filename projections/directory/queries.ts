import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { ROLES, type Role } from "../../domain/shared/roles.ts";
import type { TeamState } from "../../domain/teams/decider.ts";
import type { UserState } from "../../domain/users/decider.ts";
import { subjectVersion } from "../_runtime/subject-versions.ts";

export const userRow = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type UserRow = z.infer<typeof userRow>;

export const teamRow = z.object({ id: z.string(), name: z.string(), slug: z.string(), created_at: z.string(), updated_at: z.string() });
export const teamWithRole = z.object({ id: z.string(), name: z.string(), slug: z.string(), role: z.enum(ROLES) });
export type TeamWithRole = z.infer<typeof teamWithRole>;

export const memberRow = z.object({
  user_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  joined_at: z.string(),
});

export const keyRow = z.object({
  id: z.string(),
  secret: z.string(),
  key_type: z.enum(["client", "agent", "import"]),
  app_id: z.string().nullable(),
  team_id: z.string(),
  name: z.string(),
  created_by: z.string().nullable(),
  permissions: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  last_used_at: z.string().nullable(),
  expires_at: z.string().nullable(),
});
export type KeyRow = z.infer<typeof keyRow>;

/** Every column of the single-key shape; `api_key_usage` is joined as `u`. */
export const keyColumns = sql.fragment`
  k.id, k.secret, k.key_type, k.app_id, k.team_id, k.name, k.created_by, k.permissions, k.created_at, k.updated_at,
  u.last_used_at, k.expires_at`;

/** Stream sequence of the last fact applied to `subject` (0 when none): the expected sequence of the next append. */
export async function aggregateVersion(db: CommonQueryMethods, subject: string): Promise<number> {
  return subjectVersion(db, "aggregate_versions", subject);
}

export const userById = (db: CommonQueryMethods, id: string) =>
  db.maybeOne(sql.type(userRow)`select id, email, name, created_at, updated_at from users where id = ${id}`);

export const userByEmail = (db: CommonQueryMethods, email: string) =>
  db.maybeOne(sql.type(userRow)`select id, email, name, created_at, updated_at from users where email = ${email}`);

export const teamsOfUser = (db: CommonQueryMethods, userId: string) =>
  db.any(sql.type(teamWithRole)`
    select t.id, t.name, t.slug, m.role from team_members m join teams t on t.id = m.team_id
     where m.user_id = ${userId} and t.deleted_at is null order by m.joined_at, t.id`);

export const activeTeam = (db: CommonQueryMethods, teamId: string) =>
  db.maybeOne(sql.type(teamRow)`select id, name, slug, created_at, updated_at from teams where id = ${teamId} and deleted_at is null`);

export const teamMembers = (db: CommonQueryMethods, teamId: string) =>
  db.any(sql.type(memberRow)`
    select m.user_id, u.email, u.name, m.role, m.joined_at from team_members m join users u on u.id = m.user_id
     where m.team_id = ${teamId} order by m.joined_at, m.user_id`);

export async function memberRole(db: CommonQueryMethods, teamId: string, userId: string): Promise<Role | null> {
  return db.maybeOneFirst(sql.type(z.object({ role: z.enum(ROLES) }))`
    select m.role from team_members m join teams t on t.id = m.team_id
     where m.team_id = ${teamId} and m.user_id = ${userId} and t.deleted_at is null`);
}

/** A team as its decider needs it (domain/teams/decider.ts); "new" when no team has the id. */
export async function teamState(db: CommonQueryMethods, teamId: string): Promise<TeamState> {
  const team = await db.maybeOne(sql.type(z.object({ name: z.string(), deleted: z.boolean() }))`
    select name, deleted_at is not null as deleted from teams where id = ${teamId}`);
  if (!team) return { teamId, status: "new", name: "", members: new Map(), agentKeys: [] };
  if (team.deleted) return { teamId, status: "deleted", name: team.name, members: new Map(), agentKeys: [] };
  const members = await teamMembers(db, teamId);
  const agentKeys = await db.any(sql.type(z.object({ id: z.string(), created_by: z.string().nullable() }))`
    select id, created_by from api_keys where team_id = ${teamId} and key_type = 'agent' and deleted_at is null order by created_at, id`);
  return {
    teamId,
    status: "active",
    name: team.name,
    members: new Map(members.map((member) => [member.user_id, member.role])),
    agentKeys: agentKeys.map((key) => ({ keyId: key.id, createdBy: key.created_by })),
  };
}

/** A user account as its decider needs it (domain/users/decider.ts); unregistered when no user has the id. */
export async function userState(db: CommonQueryMethods, userId: string): Promise<UserState> {
  const user = await userById(db, userId);
  if (!user) return { userId, registered: false, email: "", name: "", teamIds: [] };
  const teams = await teamsOfUser(db, userId);
  return { userId, registered: true, email: user.email, name: user.name, teamIds: teams.map((team) => team.id) };
}

export const keyBySecret = (db: CommonQueryMethods, secret: string) =>
  db.maybeOne(sql.type(keyRow)`
    select ${keyColumns} from api_keys k left join api_key_usage u on u.key_id = k.id
     where k.secret = ${secret} and k.deleted_at is null`);

/** The oldest non-deleted agent key of a team (the team's default agent key). */
export const defaultAgentKey = (db: CommonQueryMethods, teamId: string) =>
  db.maybeOne(sql.type(keyRow)`
    select ${keyColumns} from api_keys k left join api_key_usage u on u.key_id = k.id
     where k.team_id = ${teamId} and k.key_type = 'agent' and k.deleted_at is null
     order by k.created_at, k.id limit 1`);

export const agentKeysOfMember = (db: CommonQueryMethods, teamId: string, userId: string) =>
  db.any(sql.type(keyRow)`
    select ${keyColumns} from api_keys k left join api_key_usage u on u.key_id = k.id
     where k.team_id = ${teamId} and k.key_type = 'agent' and k.created_by = ${userId} and k.deleted_at is null
     order by k.created_at, k.id`);
