-- Substring search on user ids (`search`) reads a narrow table of its own instead of a trigram
-- index on app_users. Nearly every upsert of app_users changes last_seen_at, which an index holds,
-- so no update is HOT and every index of the table gets an entry for the new row version: the
-- trigram index took ~200 of the ~280 ms an upsert of 7,000 users cost. Here a user id is written
-- once, when its record is created (renamed or removed with it by a claim).
create table app_user_search (
  project_id uuid not null,
  user_id text not null,
  primary key (project_id, user_id)
);
create index app_user_search_ids on app_user_search using gin (user_id public.gin_trgm_ops);
insert into app_user_search (project_id, user_id) select project_id, user_id from app_users;
drop index app_users_search;
