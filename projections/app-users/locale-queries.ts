import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { baseLanguage } from "./activity.ts";
import { userConditions, type DataMode, type UserScope } from "./queries.ts";

export type LocaleDemand = {
  by_locale: { locale: string; base_language: string; user_count: number; shipped: boolean | null }[];
  by_country: { country_code: string; user_count: number }[];
  supported_languages: string[] | null;
  users_with_preferred_language: number;
  total_users: number;
};

/**
 * The base languages the scope's apps ship, as their SDKs reported them: one app's list, or the
 * union over a project's apps. Null when no app in scope reported any.
 */
export async function supportedLanguages(db: CommonQueryMethods, scope: UserScope): Promise<string[] | null> {
  const lists = await db.anyFirst(sql.type(z.object({ languages: z.array(z.string()) }))`
    select l.languages from app_languages l join apps a on a.id = l.app_id and a.deleted_at is null
     where ${scope.appId !== undefined ? sql.fragment`l.app_id = ${scope.appId}` : sql.fragment`l.project_id = any(${sql.array(scope.projectIds, "uuid")})`}`);
  if (lists.length === 0) return null;
  return [...new Set(lists.flat())].sort();
}

/**
 * Locale demand of the users in scope: users per last locale and per last country, with the
 * totals. `shipped` compares a locale's base language with `supported` (null: no gap flags).
 */
export async function localeDemand(
  db: CommonQueryMethods,
  scope: UserScope,
  dataMode: DataMode,
  supported: string[] | null,
): Promise<LocaleDemand> {
  const empty: LocaleDemand = { by_locale: [], by_country: [], supported_languages: supported, users_with_preferred_language: 0, total_users: 0 };
  if (scope.projectIds.length === 0) return empty;
  const conditions = [sql.fragment`u.project_id = any(${sql.array(scope.projectIds, "uuid")})`, ...userConditions(scope, { dataMode })];
  const whereClause = sql.join(conditions, sql.fragment` and `);
  // One scan of the scope's users feeds all three answers (grouping sets instead of three queries).
  const groups = await db.any(sql.type(z.object({ locale: z.string().nullable(), country: z.string().nullable(), users: z.number(), preferred: z.number(), g: z.number() }))`
    select u.last_locale as locale, u.last_country_code as country, count(*)::bigint as users,
           count(u.last_preferred_language)::bigint as preferred, grouping(u.last_locale, u.last_country_code) as g
      from app_users u where ${whereClause}
     group by grouping sets ((u.last_locale), (u.last_country_code), ())`);
  const result = { ...empty };
  const supportedSet = supported === null ? null : new Set(supported);
  for (const row of groups) {
    if (row.g === 3) {
      result.total_users = row.users;
      result.users_with_preferred_language = row.preferred;
    } else if (row.g === 1 && row.locale !== null) {
      const base = baseLanguage(row.locale);
      result.by_locale.push({ locale: row.locale, base_language: base, user_count: row.users, shipped: supportedSet === null ? null : supportedSet.has(base) });
    } else if (row.g === 2 && row.country !== null) {
      result.by_country.push({ country_code: row.country, user_count: row.users });
    }
  }
  const byCount = <T extends { user_count: number }>(key: (row: T) => string) => (a: T, b: T) =>
    b.user_count - a.user_count || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  result.by_locale.sort(byCount((row) => row.locale));
  result.by_country.sort(byCount((row) => row.country_code));
  return result;
}
