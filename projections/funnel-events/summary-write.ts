import { sql, type DatabaseTransactionConnection, type FragmentSqlToken } from "slonik";
import { z } from "zod";

/**
 * Writing `funnel_user_days` (migration 003), the per-user step summaries beside funnel_events.
 * Ingest, the hot path, merges the new events into the rows in the statement that writes them;
 * imports, claims and retention, which also remove events, recompute the rows they touched from
 * funnel_events (`refreshUserDays`). Both give the rows a grouping of funnel_events would.
 */

/**
 * Kinds past this number of their project are not summarized: a row's arrays are as long as its
 * highest kind, so an app sending a new step name per event (`step:<id>`) would otherwise grow
 * every row. A funnel with such a kind is counted from its events (summary-queries.ts).
 */
export const MAX_SUMMARIZED_KIND = 256;

const KEY = sql.fragment`project_id, app_id, user_key, day, is_dev, environment, app_version`;
const CONFLICT = sql.fragment`(app_id, user_key, day, is_dev, environment, app_version)`;
const COLUMNS = sql.fragment`project_id, app_id, user_key, day, is_dev, environment, app_version, first_at, last_at, firsts, lasts, counts`;

/** The UTC day of a timestamp column; the summary's days are UTC days. */
export const utcDay = (column: FragmentSqlToken) => sql.fragment`(${column} at time zone 'UTC')::date`;

/**
 * The values of JSON object `column` (kind -> value) as an array with kind i at index i, up to
 * kind `top`. An aggregate builds arrays without gaps; the object lets each index look its kind up.
 */
const placed = (column: string, type: FragmentSqlToken) =>
  sql.fragment`(select array_agg((r.${sql.identifier([column])} ->> i::text)::${type} order by i) from generate_series(1, r.top) i)`;

/**
 * CTEs `<name>_kinds` and `<name>` (summary rows) from events `source` (columns of funnel_events)
 * and kinds `kinds` (project_id, step_key, screen_key, kind): per row key, each kind's first and
 * last time and count, placed at the kind's index. Events without a user are left out (funnels
 * count users).
 */
function summaryRows(name: string, source: FragmentSqlToken, kinds: FragmentSqlToken): FragmentSqlToken {
  const perKind = sql.identifier([`${name}_kinds`]);
  const grouped = sql.identifier([`${name}_grouped`]);
  return sql.fragment`
    ${perKind} as (
      select f.project_id, f.app_id, f.user_key, ${utcDay(sql.fragment`f."timestamp"`)} as day, f.is_dev, f.environment, f.app_version,
             k.kind, min(f."timestamp") as first, max(f."timestamp") as last, count(*)::int as events
        from ${source} f join ${kinds} k on k.project_id = f.project_id and k.step_key = f.step_key and k.screen_key = coalesce(f.screen_key, 0)
       where f.user_key is not null and k.kind <= ${MAX_SUMMARIZED_KIND}
       group by 1, 2, 3, 4, 5, 6, 7, 8
    ),
    ${grouped} as (
      select ${KEY}, min(first) as first_at, max(last) as last_at, max(kind) as top,
             jsonb_object_agg(kind, first) as firsts, jsonb_object_agg(kind, last) as lasts, jsonb_object_agg(kind, events) as counts
        from ${perKind} group by ${KEY}
    ),
    ${sql.identifier([name])} as (
      select ${KEY}, r.first_at, r.last_at, ${placed("firsts", sql.fragment`timestamptz`)} as firsts,
             ${placed("lasts", sql.fragment`timestamptz`)} as lasts, ${placed("counts", sql.fragment`int`)} as counts
        from ${grouped} r
    )`;
}

/** Index i of both rows' arrays, up to the longer one; least/greatest skip nulls, so a kind of either row is kept. */
const both = (value: FragmentSqlToken) =>
  sql.fragment`(select array_agg(${value} order by i) from generate_series(1, greatest(cardinality(funnel_user_days.firsts), cardinality(excluded.firsts))) i)`;

/** A row's key but the user, as text. */
const keyText = (alias: string) =>
  sql.fragment`(${sql.join(["app_id", "day", "is_dev", "environment", "app_version"].map((column) => sql.identifier([alias, column])), sql.fragment`, `)})::text`;

/** Rows `a` and `b` of one user have the same key (the unique key but the user). */
const sameKey = (a: string, b: string) => {
  const of = (alias: string) => sql.fragment`(${sql.join(["app_id", "day", "is_dev", "environment", "app_version"].map((column) => sql.identifier([alias, column])), sql.fragment`, `)})`;
  return sql.fragment`${of(a)} is not distinct from ${of(b)}`;
};

/**
 * CTEs for insertDeduped's `also`: the kinds of `fresh` (the events written), numbering new ones
 * after their project's last, and their summaries merged into existing rows kind by kind
 * (earliest first, latest last, counts added). `fresh` is free of repeats and duplicates, so
 * merging only adds events.
 *
 * `alone` (migration 004) is decided for every row written, from the rows before the statement
 * and the others it writes; a row that was alone and gets a sibling here is set apart by
 * `demoted_days`.
 */
export const mergeFreshIntoUserDays = sql.fragment`
    wanted_kinds as (
      select distinct w.project_id, w.step_key, coalesce(w.screen_key, 0) as screen_key from fresh w
       where w.user_key is not null
         and not exists (select 1 from funnel_kinds k where k.project_id = w.project_id and k.step_key = w.step_key and k.screen_key = coalesce(w.screen_key, 0))
    ),
    new_kinds as (
      insert into funnel_kinds (project_id, step_key, screen_key, kind)
      select w.project_id, w.step_key, w.screen_key,
             coalesce((select max(k.kind) from funnel_kinds k where k.project_id = w.project_id), 0)
               + row_number() over (partition by w.project_id order by w.step_key, w.screen_key)
        from wanted_kinds w
      returning project_id, step_key, screen_key, kind
    ),
    -- The statement does not see its own inserts: new kinds come from the insert, older ones from the table.
    batch_kinds as (
      select project_id, step_key, screen_key, kind from new_kinds
      union all select project_id, step_key, screen_key, kind from funnel_kinds
       where project_id in (select distinct project_id from fresh)
    ),
    ${summaryRows("fresh_days", sql.fragment`fresh`, sql.fragment`batch_kinds`)},
    -- Rows of fresh_days have distinct keys: a user with two has another row here. The stored
    -- rows are probed through the user's index, one user at a time.
    fresh_alone as materialized (
      select f.*, count(*) over (partition by f.project_id, f.user_key) = 1
                  and not exists (select 1 from funnel_user_days o where o.user_key = f.user_key and o.project_id = f.project_id and not ${sameKey("o", "f")}) as alone
        from fresh_days f
    ),
    merged_days as (
      insert into funnel_user_days (${COLUMNS}, alone) select ${COLUMNS}, alone from fresh_alone
      on conflict ${CONFLICT} do update set
        first_at = least(funnel_user_days.first_at, excluded.first_at),
        last_at = greatest(funnel_user_days.last_at, excluded.last_at),
        firsts = ${both(sql.fragment`least(funnel_user_days.firsts[i], excluded.firsts[i])`)},
        lasts = ${both(sql.fragment`greatest(funnel_user_days.lasts[i], excluded.lasts[i])`)},
        counts = ${both(sql.fragment`nullif(coalesce(funnel_user_days.counts[i], 0) + coalesce(excluded.counts[i], 0), 0)`)},
        alone = excluded.alone
    ),
    -- A user with a row that is not alone has two rows or more now. A user who had a single row
    -- before (two are looked for, no more: a user with two has none alone) had it marked alone:
    -- it is set apart here, unless the insert above rewrites it (a row changes once per
    -- statement). Keys are compared as text, where a null version differs from any other.
    single_users as (
      select u.project_id, u.user_key
        from (select distinct project_id, user_key from fresh_alone where not alone) u
        cross join lateral (
          select count(*) as stored from (select 1 from funnel_user_days o where o.user_key = u.user_key and o.project_id = u.project_id limit 2) two
        ) c
       where c.stored = 1
    ),
    demoted_days as (
      update funnel_user_days d set alone = false
        from single_users u
       where d.user_key = u.user_key and d.project_id = u.project_id and d.alone
         and (d.user_key, ${keyText("d")}) not in (select f.user_key, ${keyText("f")} from fresh_days f)
    )`;

/**
 * Serializes the transactions that decide `alone` in one generation: retention recounts users
 * beside the projector, and a recount that saw one row of a user while an insert that saw that
 * row as alone=false added another would leave two rows counted alone. Taken before any summary
 * row is written, and held to the commit.
 */
export async function lockAlone(tx: Pick<DatabaseTransactionConnection, "query">): Promise<void> {
  await tx.query(sql.unsafe`select pg_advisory_xact_lock(hashtext('funnel_user_days.alone'), hashtext(current_schema()))`);
}

/** Numbers the kinds of rows about to be written where no insert numbers them (imports). */
export async function ensureKinds(tx: DatabaseTransactionConnection, rows: readonly { project_id: string; step_key: number; screen_key: number | null }[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(sql.unsafe`
    with wanted as (
      select distinct w.project_id, w.step_key, w.screen_key
        from unnest(${sql.array(rows.map((row) => row.project_id), "uuid")}, ${sql.array(rows.map((row) => row.step_key), "int4")},
                    ${sql.array(rows.map((row) => row.screen_key ?? 0), "int4")}) as w(project_id, step_key, screen_key)
       where not exists (select 1 from funnel_kinds k where k.project_id = w.project_id and k.step_key = w.step_key and k.screen_key = w.screen_key)
    )
    insert into funnel_kinds (project_id, step_key, screen_key, kind)
    select w.project_id, w.step_key, w.screen_key,
           coalesce((select max(k.kind) from funnel_kinds k where k.project_id = w.project_id), 0)
             + row_number() over (partition by w.project_id order by w.step_key, w.screen_key)
      from wanted w`);
}

/** A (app, user, UTC day) whose events changed: its summary rows are computed again. */
export type UserDay = { app_id: string; user_key: number; day: string };

export const userDayRow = z.object({ app_id: z.string(), user_key: z.number(), day: z.string() });

/**
 * Recomputes the summary rows of `days` from funnel_events: rows are replaced, and rows whose
 * events are all gone are deleted. One statement; reads each day's events through
 * funnel_events_by_user (app_id, user_key, timestamp).
 */
export async function refreshUserDays(tx: Pick<DatabaseTransactionConnection, "query">, days: readonly UserDay[]): Promise<void> {
  if (days.length === 0) return;
  // Before the rows: an insert holds the lock while it waits for row locks (a recount that took
  // it after writing rows could wait for that insert, which waits for those rows).
  await lockAlone(tx);
  const dayStart = (day: FragmentSqlToken) => sql.fragment`(${day}::timestamp at time zone 'UTC')`;
  const events = sql.fragment`(
      select e.* from touched t
        join funnel_events e on e.app_id = t.app_id and e.user_key = t.user_key
         and e."timestamp" >= ${dayStart(sql.fragment`t.day`)} and e."timestamp" < ${dayStart(sql.fragment`(t.day + 1)`)}
    )`;
  await tx.query(sql.unsafe`
    with touched as (
      select distinct app_id, user_key, day from json_to_recordset(${JSON.stringify(days)}::json) as t(app_id uuid, user_key int, day date)
    ),
    ${summaryRows("recomputed", events, sql.fragment`funnel_kinds`)},
    emptied as (
      delete from funnel_user_days s using touched t
       where s.app_id = t.app_id and s.user_key = t.user_key and s.day = t.day
         and not exists (
           select 1 from recomputed r
            where r.app_id = s.app_id and r.user_key = s.user_key and r.day = s.day and r.is_dev = s.is_dev
              and r.environment = s.environment and r.app_version is not distinct from s.app_version)
    )
    insert into funnel_user_days (${COLUMNS}) select ${COLUMNS} from recomputed
    on conflict ${CONFLICT} do update set
      first_at = excluded.first_at, last_at = excluded.last_at, firsts = excluded.firsts, lasts = excluded.lasts, counts = excluded.counts`);
  await recountAlone(tx, [...new Set(days.map((day) => day.user_key))]);
}

/**
 * Sets `alone` of every row of `users` to whether it is its user's only row in its project,
 * after their rows were written or recomputed (rows added, removed or moved between users).
 * Only rows whose value changes are written.
 */
async function recountAlone(tx: Pick<DatabaseTransactionConnection, "query">, users: readonly number[]): Promise<void> {
  if (users.length === 0) return;
  await lockAlone(tx);
  // One index probe per user, in their partition. As a join or `user_key = any(...)` the planner
  // reads every row of the table for a batch's thousand users; `offset 0` keeps the probes.
  await tx.query(sql.unsafe`
    update funnel_user_days d set alone = n.alone
      from (
        select s.project_id, u.user_key, count(*) = 1 as alone
          from unnest(${sql.array(users, "int4")}) as u(user_key)
          cross join lateral (select o.project_id from funnel_user_days o where o.user_key = u.user_key offset 0) s
         group by s.project_id, u.user_key
      ) n
     where d.user_key = n.user_key and d.project_id = n.project_id and d.alone <> n.alone`);
}
