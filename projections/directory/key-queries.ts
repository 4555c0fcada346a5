import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
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
