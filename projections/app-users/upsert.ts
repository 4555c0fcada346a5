import { sql, type DatabaseTransactionConnection } from "slonik";
import type { ActivityFold } from "./activity.ts";

/** `excluded` replaces the stored value when it was reported at the same time or later. */
const newer = (column: string) =>
  sql.fragment`(excluded.${sql.identifier([`${column}_at`])} is not null and (u.${sql.identifier([`${column}_at`])} is null
    or excluded.${sql.identifier([`${column}_at`])} >= u.${sql.identifier([`${column}_at`])}))`;

const latest = (value: string, stamp: string) =>
  sql.fragment`${sql.identifier([value])} = case when ${newer(stamp)} then excluded.${sql.identifier([value])} else u.${sql.identifier([value])} end`;

const latestStamp = (stamp: string) => {
  const column = sql.identifier([`${stamp}_at`]);
  return sql.fragment`${column} = case when ${newer(stamp)} then excluded.${column} else u.${column} end`;
};

/**
 * Writes a fold's rows: one statement for the users (and the ids of new ones for the search), one
 * for their app links, one for language reports. Rows travel as one `json` parameter each
 * (slonik's jsonb_to_recordset recipe, as `json` because it is parsed once). Sorted by key, so the statements touch rows in a stable order.
 */
export async function writeActivity(tx: DatabaseTransactionConnection, fold: ActivityFold): Promise<void> {
  const users = [...fold.users.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (users.length > 0) {
    const rows = users.map((user) => ({
      id: user.id,
      project_id: user.project_id,
      user_id: user.user_id,
      is_anonymous: user.is_anonymous,
      first_seen_at: user.first_seen_at,
      last_seen_at: user.last_seen_at,
      last_country_code: user.country?.value ?? null,
      last_country_at: user.country?.at ?? null,
      last_app_version: user.app_version?.value ?? null,
      last_app_version_at: user.app_version?.at ?? null,
      last_sdk_name: user.sdk?.value.name ?? null,
      last_sdk_version: user.sdk?.value.version ?? null,
      last_sdk_at: user.sdk?.at ?? null,
      last_locale: user.locale?.value ?? null,
      last_locale_at: user.locale?.at ?? null,
      last_preferred_language: user.preferred_language?.value ?? null,
      last_preferred_language_at: user.preferred_language?.at ?? null,
      is_dev: user.is_dev?.value ?? false,
      is_dev_at: user.is_dev?.at ?? null,
    }));
    // The ids of records this upsert created (xmax 0: no conflicting row was updated) go to the search table.
    await tx.query(sql.unsafe`
      with written as (
      insert into app_users as u (
        id, project_id, user_id, is_anonymous, first_seen_at, last_seen_at, last_country_code, last_country_at,
        last_app_version, last_app_version_at, last_sdk_name, last_sdk_version, last_sdk_at, last_locale, last_locale_at,
        last_preferred_language, last_preferred_language_at, is_dev, is_dev_at)
      select * from json_to_recordset(${JSON.stringify(rows)}::json) as r(
        id uuid, project_id uuid, user_id text, is_anonymous boolean, first_seen_at timestamptz, last_seen_at timestamptz,
        last_country_code text, last_country_at timestamptz, last_app_version text, last_app_version_at timestamptz,
        last_sdk_name text, last_sdk_version text, last_sdk_at timestamptz, last_locale text, last_locale_at timestamptz,
        last_preferred_language text, last_preferred_language_at timestamptz, is_dev boolean, is_dev_at timestamptz)
      on conflict (project_id, user_id) do update set
        first_seen_at = least(u.first_seen_at, excluded.first_seen_at),
        last_seen_at = greatest(u.last_seen_at, excluded.last_seen_at),
        ${latest("last_country_code", "last_country")}, ${latestStamp("last_country")},
        ${latest("last_app_version", "last_app_version")}, ${latestStamp("last_app_version")},
        ${latest("last_sdk_name", "last_sdk")}, ${latest("last_sdk_version", "last_sdk")}, ${latestStamp("last_sdk")},
        ${latest("last_locale", "last_locale")}, ${latestStamp("last_locale")},
        ${latest("last_preferred_language", "last_preferred_language")}, ${latestStamp("last_preferred_language")},
        ${latest("is_dev", "is_dev")}, ${latestStamp("is_dev")}
      returning u.project_id, u.user_id, u.xmax = 0 as created)
      insert into app_user_search (project_id, user_id) select project_id, user_id from written where created
      on conflict do nothing`);

    const links = users.flatMap((user) =>
      [...user.apps].map(([appId, seen]) => ({ project_id: user.project_id, user_id: user.user_id, app_id: appId, ...seen })),
    );
    await tx.query(sql.unsafe`
      insert into app_user_apps as l (project_id, user_id, app_id, first_seen_at, last_seen_at)
      select * from json_to_recordset(${JSON.stringify(links)}::json) as r(
        project_id uuid, user_id text, app_id uuid, first_seen_at timestamptz, last_seen_at timestamptz)
      on conflict (project_id, user_id, app_id) do update set
        first_seen_at = least(l.first_seen_at, excluded.first_seen_at),
        last_seen_at = greatest(l.last_seen_at, excluded.last_seen_at)`);
  }
  if (fold.languages.size > 0) {
    await tx.query(sql.unsafe`
      insert into app_languages as a (app_id, project_id, languages, reported_at)
      select r.app_id, r.project_id, array(select json_array_elements_text(r.languages)), r.reported_at
        from json_to_recordset(${JSON.stringify([...fold.languages.values()])}::json) as r(
          app_id uuid, project_id uuid, languages json, reported_at timestamptz)
      on conflict (app_id) do update set languages = excluded.languages, reported_at = excluded.reported_at
        where excluded.reported_at >= a.reported_at`);
  }
}
