-- Lists order by coalesce(last_seen_at, created_at) desc, id desc (queries.ts), which the indexes
-- on last_seen_at cannot serve: every list sorted its project's or team's issues in full. With
-- 100k issues in a project, a page took 50-250 ms, its cursor pages no less. These indexes hold
-- the list's order, so a page reads its rows in order, filters and cursor included; a status
-- filter, the common one, has its own so that a rare status does not walk the others.
-- issues_by_project_seen stays for the digest (issues seen since a time, digest-queries.ts).
drop index issues_by_team_seen;
create index issues_by_project_list on issues (project_id, coalesce(last_seen_at, created_at) desc, id desc);
create index issues_by_project_status_list on issues (project_id, status, coalesce(last_seen_at, created_at) desc, id desc);
create index issues_by_team_list on issues (team_id, coalesce(last_seen_at, created_at) desc, id desc);
create index issues_by_team_status_list on issues (team_id, status, coalesce(last_seen_at, created_at) desc, id desc);

-- Counts per status read this index alone (an index-only scan of the team's or project's entries),
-- grouped by app before the apps and projects are joined, instead of every issue row.
create index issues_for_counts on issues (team_id, project_id, is_dev, status, app_id);
