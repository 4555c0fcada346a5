-- Rollups of `events` for GET /v1/events/count, written by the projector in the statement that
-- writes the events they count, from the rows it actually kept (insert.ts, replace.ts, rollups.ts),
-- so dedup, imports and replay give the same numbers as the rows. Two tiers: a window's whole
-- hours are read from `event_totals_hour`, the whole minutes of its partial hours from
-- `event_totals_minute`, and only its partial minutes from `events` (count.ts).
--
-- The extension lives in `public`, which every generation's search path includes; it is created
-- here rather than in the runtime's bookkeeping because only this read model needs it.
create extension if not exists hll schema public;

-- Per whole app and per whole project (`app_id` the nil uuid), by bucket and `is_dev` (the
-- dimension every count filters on, through data_mode): the exact number of events and mergeable
-- HyperLogLog sketches (postgresql-hll) of their users and sessions. A window of a project reads
-- one row per bucket instead of one per app: merging ~4,000 sketches of an hour of 64 apps took
-- ~70 ms, 80 took 1 ms. Partitioned by month of the bucket like `events` (the projector creates
-- the partitions the same way), so retention drops a month of rollups with its events.
--
-- Not by level or environment: counts by dimension are of no use without sketches by dimension,
-- and those cost too much to keep (a full sketch is 10 kB, and each statement rewrote the current
-- hour's sketches of every app and dimension it touched: loading 1.5 million events into the last
-- hour made that hourly table 1 GB of row versions for 4,362 rows, more than the events, 794 MB).
-- Nor by screen_name (hundreds of values per app). A count filtered by level, environment, screen
-- name, user or session reads the rows (the last two through their indexes).
create table event_totals_minute (
  project_id uuid not null,
  app_id uuid not null,
  minute timestamptz not null,
  is_dev boolean not null,
  events bigint not null,
  users hll not null,
  sessions hll not null,
  primary key (project_id, app_id, minute, is_dev)
) partition by range (minute);

create table event_totals_hour (
  project_id uuid not null,
  app_id uuid not null,
  hour timestamptz not null,
  is_dev boolean not null,
  events bigint not null,
  users hll not null,
  sessions hll not null,
  primary key (project_id, app_id, hour, is_dev)
) partition by range (hour);

-- Rollups of the events already stored, month by month, with the expressions the projector uses
-- (rollups.ts: same sketch parameters and hashes, so old and new sketches merge). Partitions are
-- created apart and attached, as the projector does.
do $$
declare
  leaf record;
  month_start timestamptz;
  suffix text;
  tier text;
begin
  for leaf in
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'events'::regclass order by 1
  loop
    suffix := substring(leaf.name from '_p(\d{6})$');
    continue when suffix is null;
    month_start := (left(suffix, 4) || '-' || right(suffix, 2) || '-01T00:00:00Z')::timestamptz;
    foreach tier in array array['event_totals_minute', 'event_totals_hour'] loop
      execute format('create table %I (like %I including defaults including constraints)', tier || '_p' || suffix, tier);
      execute format('alter table %I attach partition %I for values from (%L) to (%L)',
                     tier, tier || '_p' || suffix, month_start, month_start + interval '1 month');
    end loop;
    execute format($sql$
      insert into event_totals_minute (project_id, app_id, minute, is_dev, events, users, sessions)
      select project_id, coalesce(app_id, '00000000-0000-0000-0000-000000000000'), minute, is_dev, count(*),
             coalesce(hll_add_agg(hll_hash_text(user_id), 14, 5, -1, 0), hll_empty(14, 5, -1, 0)),
             hll_add_agg(hll_hash_bytea(uuid_send(session_id)), 14, 5, -1, 0)
        from (select *, date_bin('1 minute', "timestamp", '1970-01-01T00:00:00Z'::timestamptz) as minute from %I) e
       group by grouping sets ((project_id, app_id, minute, is_dev), (project_id, minute, is_dev))$sql$, leaf.name);
    execute format($sql$
      insert into event_totals_hour (project_id, app_id, hour, is_dev, events, users, sessions)
      select project_id, app_id, date_bin('1 hour', minute, '1970-01-01T00:00:00Z'::timestamptz), is_dev, sum(events), hll_union_agg(users), hll_union_agg(sessions)
        from %I group by 1, 2, 3, 4$sql$, 'event_totals_minute_p' || suffix);
  end loop;
end
$$;
