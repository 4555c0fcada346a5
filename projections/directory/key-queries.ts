import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { TeamKeys } from "../../domain/keys/decider.ts";
import { KEY_TYPES } from "../../domain/shared/permissions.ts";
import { ROLES, type Role } from "../../domain/shared/roles.ts";
import { keyColumns, keyRow } from "./queries.ts";

const listedKeyRow = keyRow.extend({ created_by_email: z.string().nullable(), app_name: z.string().nullable() });

/** Active keys of the given teams with their creator's email and app name (the list shape). */
export const keysOfTeams = (db: CommonQueryMethods, teamIds: readonly string[]) =>
  db.any(sql.type(listedKeyRow)`
    select ${keyColumns}, creator.email as created_by_email, a.name as app_name
      from api_keys k
      left join api_key_usage u on u.key_id = k.id
      left join users creator on creator.id = k.created_by
      left join apps a on a.id = k.app_id
     where k.team_id = any(${sql.array(teamIds, "uuid")}) and k.deleted_at is null
     order by k.created_at, k.id`);

export const activeKey = (db: CommonQueryMethods, keyId: string) =>
  db.maybeOne(sql.type(keyRow)`
    select ${keyColumns} from api_keys k left join api_key_usage u on u.key_id = k.id where k.id = ${keyId} and k.deleted_at is null`);

/**
 * The user's role in each of `teamIds` they belong to (active teams only): whether they see a
 * key's full secret depends on it (domain/keys/secret-visibility.ts).
 */
export async function rolesOfViewer(db: CommonQueryMethods, userId: string, teamIds: readonly string[]): Promise<Map<string, Role>> {
  if (teamIds.length === 0) return new Map();
  const rows = await db.any(sql.type(z.object({ team_id: z.string(), role: z.enum(ROLES) }))`
    select m.team_id, m.role from team_members m join teams t on t.id = m.team_id
     where m.user_id = ${userId} and m.team_id = any(${sql.array(teamIds, "uuid")}) and t.deleted_at is null`);
  return new Map(rows.map((row) => [row.team_id, row.role]));
}

/** A team's active keys and the active apps they may be bound to, as the keys decider sees them (domain/keys/decider.ts). */
export async function teamKeys(db: CommonQueryMethods, teamId: string): Promise<TeamKeys> {
  const apps = await db.any(sql.type(z.object({ id: z.string(), project_id: z.string() }))`
    select id, project_id from apps where team_id = ${teamId} and deleted_at is null order by created_at, id`);
  const keys = await db.any(sql.type(
    z.object({ id: z.string(), key_type: z.enum(KEY_TYPES), app_id: z.string().nullable(), name: z.string(), permissions: z.array(z.string()) }),
  )`
    select id, key_type, app_id, name, permissions from api_keys where team_id = ${teamId} and deleted_at is null order by created_at, id`);
  return {
    teamId,
    apps: apps.map((app) => ({ id: app.id, projectId: app.project_id })),
    keys: keys.map((key) => ({ id: key.id, keyType: key.key_type, appId: key.app_id, name: key.name, permissions: key.permissions })),
  };
}

/** The user who created a key, deleted or not (null for keys created with an account). */
export const keyCreator = (db: CommonQueryMethods, keyId: string) =>
  db.maybeOneFirst(sql.type(z.object({ created_by: z.string().nullable() }))`select created_by from api_keys where id = ${keyId}`);
