import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";

/**
 * The app a subscription-provider fact about a user is linked to (identity facts carry one): the
 * app the user was seen in last, else the project's oldest active app (a user the provider knows
 * before any app reported them); null when the project has no app.
 */
export const linkedAppOf = (db: CommonQueryMethods, projectId: string, userId: string) =>
  db.oneFirst(sql.type(z.object({ app_id: z.string().nullable() }))`
    select coalesce(
      (select app_id from app_user_apps where project_id = ${projectId} and user_id = ${userId} order by last_seen_at desc, app_id limit 1),
      (select id from apps where project_id = ${projectId} and deleted_at is null order by created_at, id limit 1)) as app_id`);

/** How many identified (non-anonymous) users the project has: the total of a `subprov_sync` run. */
export const identifiedUserCount = (db: CommonQueryMethods, projectId: string) =>
  db.oneFirst(sql.type(z.object({ count: z.number() }))`
    select count(*)::int as count from app_users where project_id = ${projectId} and not is_anonymous`);

/** The next `limit` identified users of the project after `after` in user id order (keyset paging over the unique index). */
export const identifiedUsersAfter = (db: CommonQueryMethods, projectId: string, after: string | null, limit: number) =>
  db.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    select user_id from app_users
     where project_id = ${projectId} and not is_anonymous ${after === null ? sql.fragment`` : sql.fragment`and user_id > ${after}`}
     order by user_id limit ${limit}`);

/** Which of `userIds` the project already has, as a user or as a claimed anonymous id. */
export const knownUserIds = async (db: CommonQueryMethods, projectId: string, userIds: readonly string[]): Promise<Set<string>> => {
  if (userIds.length === 0) return new Set();
  const rows = await db.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    select user_id from app_users where project_id = ${projectId} and user_id = any(${sql.array([...userIds], "text")})
    union
    select anonymous_id from app_user_claims where project_id = ${projectId} and anonymous_id = any(${sql.array([...userIds], "text")})`);
  return new Set(rows);
};
