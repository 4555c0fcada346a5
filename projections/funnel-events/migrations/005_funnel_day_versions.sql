-- Which transaction last changed a project's summary rows of a day. A funnel query counts the
-- users alone in their project (migration 004) day by day for the days wholly inside its window,
-- and the API keeps those per-day answers (day-answers.ts): an answer holds while the day's
-- version is the one it was computed at. The version is the changing transaction's id, unique in
-- the cluster, so a version seen once never comes back, neither in this schema nor in a replay's.
create table funnel_day_versions (
  project_id uuid not null,
  day date not null,
  version bigint not null,
  primary key (project_id, day)
);

-- Kept by triggers, so every writer of the summaries (ingest, imports, claims, retention's
-- recount, a replay) moves the versions with its rows and in its transaction; none can forget.
-- Writers change a row's values and `alone`, never its project or day, so an update's new rows
-- name every day it touched. Rows are taken in key order: two writers cannot lock versions in
-- opposite orders. The trigger names its table through the schema of the table that fired it:
-- the projector and retention reach generations under different search paths.
create function funnel_days_touched() returns trigger language plpgsql as $$
begin
  execute format(
    'insert into %I.funnel_day_versions as v (project_id, day, version)
     select distinct project_id, day, pg_current_xact_id()::text::bigint from changed order by 1, 2
     on conflict (project_id, day) do update set version = excluded.version
      where v.version is distinct from excluded.version',
    tg_table_schema);
  return null;
end
$$;

create trigger funnel_user_days_inserted after insert on funnel_user_days
  referencing new table as changed for each statement execute function funnel_days_touched();
create trigger funnel_user_days_updated after update on funnel_user_days
  referencing new table as changed for each statement execute function funnel_days_touched();
create trigger funnel_user_days_deleted after delete on funnel_user_days
  referencing old table as changed for each statement execute function funnel_days_touched();

-- Retention deletes expired rows from each partition directly, which the table's own statement
-- triggers do not see: each partition has the delete trigger too.
do $$
declare
  part regclass;
begin
  for part in select inhrelid::regclass from pg_inherits where inhparent = 'funnel_user_days'::regclass loop
    execute format('create trigger funnel_user_days_deleted after delete on %s
      referencing old table as changed for each statement execute function funnel_days_touched()', part);
  end loop;
end
$$;

insert into funnel_day_versions (project_id, day, version)
select distinct project_id, day, pg_current_xact_id()::text::bigint from funnel_user_days;
