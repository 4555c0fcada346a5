-- Users with a single summary row. Grouping the window's rows by user was more than half of a
-- funnel query's CPU time (docs/decisions.md, "Funnel and issue query speed"), and most users
-- of a window have one row there: their row is their answer. `alone` says a row is the only
-- one of its user in its project, whatever its day, app, environment or version, so in any
-- window and with any filter that user has this row or none, and the query reads it without
-- grouping. The rows of other users are grouped as before.
--
-- Exact, a function of the rows: the projector keeps it in the statement that writes a row and
-- recounts the users whose days it recomputes (summary-write.ts), so a replay rebuilds the same
-- values. False is never wrong, only slower: a user counted alone must have no other row.
alter table funnel_user_days add column alone boolean not null default false;

-- The writer asks for a user's other rows in the project: the unique key leads with the user.
create unique index funnel_user_days_by_user on funnel_user_days (user_key, app_id, day, is_dev, environment, app_version) nulls not distinct;
drop index funnel_user_days_key;
-- A query groups the rows of users with several; where those are few, it finds them here
-- instead of reading every row of the window a second time.
create index funnel_user_days_grouped on funnel_user_days (project_id, day) where not alone;

update funnel_user_days d set alone = true
  from (select project_id, user_key from funnel_user_days group by project_id, user_key having count(*) = 1) single
 where d.project_id = single.project_id and d.user_key = single.user_key;
