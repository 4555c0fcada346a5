-- One row per feedback record from its submission on; deleted_at set by a soft deletion. Every
-- value comes from the facts, so a replay rebuilds identical rows. The user a claim moved it to
-- is not stored: queries.ts resolves it at read time through app_users' claims, as attachments do.
create table feedback (
  id uuid primary key,
  team_id uuid not null,
  project_id uuid not null,
  app_id uuid not null,
  message text not null,
  status text not null,
  session_id uuid,
  user_id text,
  submitter_name text,
  submitter_email text,
  is_dev boolean not null,
  environment text,
  os_version text,
  app_version text,
  sdk_name text,
  sdk_version text,
  device_model text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);

-- A project's list, newest first, with or without the status filter.
create index feedback_by_project_created on feedback (project_id, created_at desc, id desc) where deleted_at is null;

create table feedback_comments (
  id uuid primary key,
  feedback_id uuid not null,
  author_type text not null,
  author_id text not null,
  author_name text not null,
  body text not null,
  created_at timestamptz not null,
  edited_at timestamptz,
  deleted_at timestamptz
);

create index feedback_comments_by_feedback on feedback_comments (feedback_id, created_at, id);

-- Stream sequence of the last fact on each feedback subject, written with the rows: the API reads
-- it as the expected sequence of the record's next append.
create table feedback_versions (
  subject text primary key,
  last_seq bigint not null
);
