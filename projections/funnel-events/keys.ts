import { sql, type CommonQueryMethods, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import type { FunnelEventRow } from "../../domain/funnels/derive.ts";
import type { StepFilter } from "../../domain/funnels/analytics.ts";

/**
 * A funnel event as `funnel_events` stores it: the user, step name and screen name replaced by
 * their int keys (funnel_users, funnel_names), so a query groups and compares numbers.
 */
export type KeyedFunnelRow = {
  project_id: string;
  app_id: string;
  timestamp: string;
  user_key: number | null;
  step_key: number;
  is_dev: boolean;
  environment: string;
  app_version: string | null;
  screen_key: number | null;
  id: string;
  client_event_id: string | null;
  received_at: string;
};

const keysRow = z.object({ keys: z.string() });

/**
 * The keys of `users` and `names`, numbering the ones seen for the first time. Only values
 * without a key are inserted, so no key is spent on a value that has one; the projector is the
 * only writer of its generation's dictionaries, so nothing races. One statement, one JSON answer.
 */
async function keysOf(tx: DatabaseTransactionConnection, users: readonly string[], names: readonly string[]) {
  const keys = await tx.oneFirst(sql.type(keysRow)`
    with wanted_users as (select unnest(${sql.array(users, "text")}) as user_id),
    wanted_names as (select unnest(${sql.array(names, "text")}) as name),
    new_users as (
      insert into funnel_users (user_id)
      select w.user_id from wanted_users w where not exists (select 1 from funnel_users f where f.user_id = w.user_id)
      returning user_id, user_key
    ),
    new_names as (
      insert into funnel_names (name)
      select w.name from wanted_names w where not exists (select 1 from funnel_names f where f.name = w.name)
      returning name, name_key
    ),
    -- The statement does not see its own inserts: new keys come from the inserts, older ones from the tables.
    all_users as (
      select user_id, user_key from new_users
      union all select f.user_id, f.user_key from funnel_users f join wanted_users using (user_id)
    ),
    all_names as (
      select name, name_key from new_names
      union all select f.name, f.name_key from funnel_names f join wanted_names using (name)
    )
    select json_build_object(
      'users', (select coalesce(json_object_agg(user_id, user_key), '{}') from all_users),
      'names', (select coalesce(json_object_agg(name, name_key), '{}') from all_names)
    )::text as keys`);
  return JSON.parse(keys) as { users: Record<string, number>; names: Record<string, number> };
}

/** The rows in their stored form, with keys for every user and name they carry. */
export async function keyedRows(tx: DatabaseTransactionConnection, rows: readonly FunnelEventRow[]): Promise<KeyedFunnelRow[]> {
  if (rows.length === 0) return [];
  const users = new Set<string>();
  const names = new Set<string>();
  for (const row of rows) {
    if (row.user_id !== null) users.add(row.user_id);
    names.add(row.step_name);
    if (row.screen_name !== null) names.add(row.screen_name);
  }
  const keys = await keysOf(tx, [...users], [...names]);
  return rows.map((row) => ({
    project_id: row.project_id,
    app_id: row.app_id,
    timestamp: row.timestamp,
    user_key: row.user_id === null ? null : keys.users[row.user_id]!,
    step_key: keys.names[row.step_name]!,
    is_dev: row.is_dev,
    environment: row.environment,
    app_version: row.app_version,
    screen_key: row.screen_name === null ? null : keys.names[row.screen_name]!,
    id: row.id,
    client_event_id: row.client_event_id,
    received_at: row.received_at,
  }));
}

/** The key of `user`, numbered if it has none yet (a claim moves rows to a user with no events). */
export async function userKey(tx: DatabaseTransactionConnection, user: string): Promise<number> {
  return (await keysOf(tx, [user], [])).users[user]!;
}

/**
 * A step filter in keys: a name no event ever carried has no key, and the step then matches
 * nothing (`null`).
 */
export type KeyedStepFilter = { step_key?: number | null; screen_key?: number | null };

/** The funnel's step filters in keys, read from the active generation's dictionary. */
export async function keyedFilters(db: CommonQueryMethods, filters: readonly StepFilter[]): Promise<KeyedStepFilter[]> {
  const names = [...new Set(filters.flatMap((filter) => [filter.step_name, filter.screen_name].filter((name) => name !== undefined)))];
  const rows = await db.any(sql.type(z.object({ name: z.string(), name_key: z.number() }))`
    select name, name_key from funnel_names where name = any(${sql.array(names, "text")})`);
  const key = new Map(rows.map((row) => [row.name, row.name_key]));
  return filters.map((filter) => ({
    ...(filter.step_name === undefined ? {} : { step_key: key.get(filter.step_name) ?? null }),
    ...(filter.screen_name === undefined ? {} : { screen_key: key.get(filter.screen_name) ?? null }),
  }));
}
