-- Per-user step summaries: a funnel query grouped every step event of its window by user, and
-- most of its time went to reading and hashing events. One row per (app, user, UTC day, dev
-- flag, environment, app version) holds, for each kind of step event the user sent that day, the
-- first and last time and the number of events. A query reads a row per user and day instead of
-- an event per step sent, for any funnel definition: steps are matched against kinds, not
-- against the funnel (docs/decisions.md, "Funnel and issue query speed").
--
-- A kind is a (step name, screen name) pair of a project, numbered 1, 2, ... in the project
-- (screen_key 0: no screen). A step's filter matches a set of kinds, found here at query time.
-- Numbers are dense per project so that a row keeps a kind's values at the kind's index in its
-- arrays: a query reads them by subscript, with no search (array_position cost about as much as
-- the grouping it saves). Kinds past 256 are not summarized (MAX_SUMMARIZED_KIND, summary-write.ts).
create table funnel_kinds (
  project_id uuid not null,
  step_key int not null,
  screen_key int not null,
  kind int not null,
  primary key (project_id, step_key, screen_key),
  unique (project_id, kind)
);

insert into funnel_kinds (project_id, step_key, screen_key, kind)
select project_id, step_key, screen_key, row_number() over (partition by project_id order by step_key, screen_key)
  from (select distinct project_id, step_key, coalesce(screen_key, 0) as screen_key from funnel_events) pairs;

-- `firsts`, `lasts` and `counts` hold kind i at index i, up to the row's highest kind (null where
-- the user sent none that day: a bit in the array's null bitmap). `first_at`/`last_at` bound the
-- row: a row inside a query's window is read as it is, the few that straddle its ends send their
-- user back to the events. Every value is an aggregate of funnel_events, so a replay rebuilds
-- the same rows (with its own kind numbers). Same hash partitions as funnel_events: grouping by
-- user stays partitionwise.
create table funnel_user_days (
  project_id uuid not null,
  day date not null,
  user_key int not null,
  app_id uuid not null,
  is_dev boolean not null,
  environment text not null,
  app_version text,
  first_at timestamptz not null,
  last_at timestamptz not null,
  firsts timestamptz[] not null,
  lasts timestamptz[] not null,
  counts int[] not null
) partition by hash (user_key);

do $$
begin
  for remainder in 0..7 loop
    execute format('create table funnel_user_days_k%s partition of funnel_user_days for values with (modulus 8, remainder %s)', remainder, remainder);
  end loop;
end
$$;

-- The projector's upserts, refreshes and claims find a user's rows by app, user and day.
create unique index funnel_user_days_key on funnel_user_days (app_id, user_key, day, is_dev, environment, app_version) nulls not distinct;
-- Queries and retention read a project's days.
create index funnel_user_days_by_day on funnel_user_days (project_id, day);

-- Kinds are placed at their index through a JSON object per row, as the projector does (summary-write.ts).
insert into funnel_user_days
select project_id, day, user_key, app_id, is_dev, environment, app_version, first_at, last_at,
       (select array_agg((r.firsts ->> i::text)::timestamptz order by i) from generate_series(1, r.top) i),
       (select array_agg((r.lasts ->> i::text)::timestamptz order by i) from generate_series(1, r.top) i),
       (select array_agg((r.counts ->> i::text)::int order by i) from generate_series(1, r.top) i)
  from (
    select project_id, day, user_key, app_id, is_dev, environment, app_version, min(first) as first_at, max(last) as last_at, max(kind) as top,
           jsonb_object_agg(kind, first) as firsts, jsonb_object_agg(kind, last) as lasts, jsonb_object_agg(kind, events) as counts
      from (
        select e.project_id, (e."timestamp" at time zone 'UTC')::date as day, e.user_key, e.app_id, e.is_dev, e.environment, e.app_version,
               k.kind, min(e."timestamp") as first, max(e."timestamp") as last, count(*)::int as events
          from funnel_events e join funnel_kinds k on k.project_id = e.project_id and k.step_key = e.step_key and k.screen_key = coalesce(e.screen_key, 0)
         where e.user_key is not null and k.kind <= 256
         group by 1, 2, 3, 4, 5, 6, 7, 8
      ) per_kind
     group by project_id, day, user_key, app_id, is_dev, environment, app_version
  ) r;
