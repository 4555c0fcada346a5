-- One row per issue. Every value comes from the facts (ids and times decided before the append),
-- so a replay rebuilds identical rows. Counts and first/last values are kept beside the rows by
-- the projector, so a list never aggregates occurrences.
create table issues (
  id uuid primary key,
  project_id uuid not null,
  team_id uuid not null,
  app_id uuid not null,
  is_dev boolean not null,
  status text not null,
  title text not null,
  source_module text,
  occurrence_count integer not null default 0,
  unique_user_count integer not null default 0,
  resolved_at_version text,
  first_seen_sdk_version text,
  last_seen_sdk_version text,
  first_seen_at timestamptz,
  last_seen_at timestamptz,
  last_notified_at timestamptz,
  snoozed_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

-- Lists: newest last seen first, by project (the project route) or by team (the cross-project route).
create index issues_by_project_seen on issues (project_id, last_seen_at desc nulls last, id desc);
create index issues_by_team_seen on issues (team_id, last_seen_at desc nulls last, id desc);

-- Every fingerprint of an issue: the one that opened it and those aliased into it. Scoped by app
-- and dev flag, so dev and production, or two apps, never share an issue.
create table issue_fingerprints (
  app_id uuid not null,
  is_dev boolean not null,
  fingerprint text not null,
  project_id uuid not null,
  issue_id uuid not null,
  created_at timestamptz not null,
  primary key (app_id, is_dev, fingerprint)
);
create index issue_fingerprints_by_issue on issue_fingerprints (issue_id);

-- One occurrence per (issue, session): the first error of that session.
create table issue_occurrences (
  id uuid primary key,
  issue_id uuid not null,
  project_id uuid not null,
  event_id uuid not null,
  event_client_id uuid,
  session_id uuid not null,
  user_id text,
  app_version text,
  sdk_name text,
  sdk_version text,
  environment text not null,
  country_code text,
  timestamp timestamptz not null,
  created_at timestamptz not null,
  unique (issue_id, session_id)
);
-- The detector's question: which issues a batch's sessions already have an occurrence of.
create index issue_occurrences_by_session on issue_occurrences (project_id, session_id);
-- The detail's occurrence page, newest first.
create index issue_occurrences_by_issue on issue_occurrences (issue_id, timestamp desc, id desc);
-- An issue's attachments: those of its occurrences' events.
create index issue_occurrences_by_client_event on issue_occurrences (event_client_id) where event_client_id is not null;

-- Distinct users of an issue, for unique_user_count.
create table issue_users (
  issue_id uuid not null,
  user_id text not null,
  primary key (issue_id, user_id)
);

-- Stream sequence of the last fact on each project's issues subject, written in the same
-- transaction as the rows: the detector and the API read it as the expected sequence of their next append.
create table issue_versions (
  subject text primary key,
  last_seq bigint not null
);

-- Comments, soft-deleted (deleted_at) rather than removed. The author's name is the one at the time of writing.
create table issue_comments (
  id uuid primary key,
  issue_id uuid not null,
  project_id uuid not null,
  author_type text not null,
  author_id text not null,
  author_name text not null,
  body text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);
create index issue_comments_by_issue on issue_comments (issue_id, created_at, id) where deleted_at is null;
