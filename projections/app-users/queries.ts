import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { recordRow } from "./records.ts";

export type DataMode = "production" | "development" | "all";
export const BILLING_STATUSES = ["free", "trial", "paid"] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];

/** Which users a query covers: users of these projects, or only those seen in `appId`. */
export type UserScope = { projectIds: readonly string[]; appId?: string };

export type UserFilter = {
  /** Case-insensitive substring of the user id. */
  search?: string;
  isAnonymous?: boolean;
  billing?: BillingStatus[];
  dataMode: DataMode;
  /** Bounds on last_seen_at. */
  since?: Date;
  until?: Date;
};

/** Position after the last row of the previous page (last_seen_at descending, then id). */
export type UserCursor = { lastSeenAt: string; id: string };

const appLink = z.object({ app_id: z.string(), app_name: z.string(), first_seen_at: z.string(), last_seen_at: z.string() });

/** A user as the lists show it: the stored record without the time stamps and merge mark, plus app links. */
const userRow = recordRow
  .pick({
    id: true,
    project_id: true,
    user_id: true,
    is_anonymous: true,
    first_seen_at: true,
    last_seen_at: true,
    last_country_code: true,
    last_app_version: true,
    last_sdk_name: true,
    last_sdk_version: true,
    last_locale: true,
    last_preferred_language: true,
    claimed_from: true,
    properties: true,
  })
  .extend({ apps: z.array(appLink), is_dev: recordRow.shape.is_dev });
export type AppUserRow = z.infer<typeof userRow>;

/** `\`, `%` and `_` are literal in a search, not LIKE wildcards. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;

export function userConditions(scope: UserScope, filter: Pick<UserFilter, "dataMode"> & Partial<UserFilter>) {
  const conditions = [];
  if (scope.appId !== undefined) {
    conditions.push(sql.fragment`exists (select 1 from app_user_apps l
      where l.project_id = u.project_id and l.user_id = u.user_id and l.app_id = ${scope.appId})`);
  }
  if (filter.search !== undefined) {
    conditions.push(sql.fragment`u.user_id in (select s.user_id from app_user_search s
      where s.project_id = u.project_id and s.user_id ilike ${likePattern(filter.search)})`);
  }
  if (filter.isAnonymous !== undefined) conditions.push(sql.fragment`u.is_anonymous = ${filter.isAnonymous}`);
  if (filter.billing !== undefined) conditions.push(sql.fragment`u.billing_status = any(${sql.array(filter.billing, "text")})`);
  if (filter.dataMode === "production") conditions.push(sql.fragment`u.is_dev = false`);
  if (filter.dataMode === "development") conditions.push(sql.fragment`u.is_dev = true`);
  if (filter.since) conditions.push(sql.fragment`u.last_seen_at >= ${filter.since.toISOString()}::timestamptz`);
  if (filter.until) conditions.push(sql.fragment`u.last_seen_at <= ${filter.until.toISOString()}::timestamptz`);
  return conditions;
}

const where = (conditions: ReturnType<typeof userConditions>) =>
  conditions.length === 0 ? sql.fragment`true` : sql.join(conditions, sql.fragment` and `);

/**
 * One page of users, newest last_seen_at first, fetching limit + 1 rows so the caller knows if more
 * exist. Each project is walked through its own (project_id, last_seen_at, id) index and the walks
 * are merged, so the cost follows the page size. App links carry the names of apps not deleted.
 */
export async function listUsers(db: CommonQueryMethods, scope: UserScope, filter: UserFilter, page: { cursor?: UserCursor; limit: number }) {
  if (scope.projectIds.length === 0) return [];
  const conditions = [sql.fragment`u.project_id = p.id`, ...userConditions(scope, filter)];
  if (page.cursor) {
    conditions.push(sql.fragment`(u.last_seen_at, u.id) < (${page.cursor.lastSeenAt}::timestamptz, ${page.cursor.id}::uuid)`);
  }
  const rows = await db.any(sql.type(userRow.extend({ apps: z.unknown() }))`
    select u.*, coalesce((
             select json_agg(json_build_object('app_id', l.app_id, 'app_name', a.name,
                      'first_seen_at', l.first_seen_at, 'last_seen_at', l.last_seen_at) order by l.first_seen_at, l.app_id)
               from app_user_apps l join apps a on a.id = l.app_id and a.deleted_at is null
              where l.project_id = u.project_id and l.user_id = u.user_id), '[]') as apps
      from unnest(${sql.array(scope.projectIds, "uuid")}) as p(id)
     cross join lateral (
       select u.id, u.project_id, u.user_id, u.is_anonymous, u.first_seen_at, u.last_seen_at, u.last_country_code,
              u.last_app_version, u.last_sdk_name, u.last_sdk_version, u.last_locale, u.last_preferred_language,
              u.claimed_from, u.properties, u.is_dev
         from app_users u where ${where(conditions)}
        order by u.last_seen_at desc, u.id desc limit ${page.limit + 1}
     ) u
     order by u.last_seen_at desc, u.id desc limit ${page.limit + 1}`);
  // json_build_object writes timestamps in Postgres' text form; the API shows ISO 8601 with milliseconds.
  return rows.map((row) =>
    userRow.parse({
      ...row,
      apps: (row.apps as z.infer<typeof appLink>[]).map((link) => ({
        ...link,
        first_seen_at: new Date(link.first_seen_at).toISOString(),
        last_seen_at: new Date(link.last_seen_at).toISOString(),
      })),
    }),
  );
}
