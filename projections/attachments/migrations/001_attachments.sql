-- One row per attachment from its reservation until it is purged: reserved (uploaded_at null),
-- uploaded, soft-deleted (deleted_at set). Every value comes from the facts, so a replay rebuilds
-- identical rows. event_id and the user a claim moved it to are not stored: queries.ts resolves
-- both at read time, so they are right whichever arrives first (event, claim or attachment).
create table attachments (
  id uuid primary key,
  project_id uuid not null,
  team_id uuid not null,
  app_id uuid not null,
  event_client_id uuid not null,
  user_id text,
  original_filename text not null,
  content_type text not null,
  size_bytes bigint not null,
  sha256 text not null,
  is_dev boolean not null,
  storage_key text,
  uploaded_at timestamptz,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  deleted_at timestamptz
);

-- Lists, newest first, by team (every project the caller can see) or by project.
create index attachments_by_team_created on attachments (team_id, created_at desc, id desc) where deleted_at is null;
create index attachments_by_project_created on attachments (project_id, created_at desc, id desc) where deleted_at is null;
-- An event's attachments, and the list filtered by event or by event_client_id alone.
create index attachments_by_event on attachments (event_client_id, app_id) where deleted_at is null;
-- A user's usage (the quota decision and the usage route).
create index attachments_by_user on attachments (project_id, user_id) where deleted_at is null and user_id is not null;
-- The cleanup's candidates: deletions past their grace, reservations past their expiry.
create index attachments_deleted on attachments (deleted_at) where deleted_at is not null;
create index attachments_unuploaded on attachments (expires_at) where uploaded_at is null;

-- What counts against a project's quota, kept by the projector beside the rows (a sum over a
-- project's rows would grow with the project, and every reservation reads it): attachments not
-- deleted, reservations at their declared size.
create table attachment_usage (
  project_id uuid primary key,
  used_bytes bigint not null,
  file_count bigint not null
);

-- Stream sequence of the last fact on each project's attachments subject, written in the same
-- transaction as the rows: the API reads it as the expected sequence of its next append.
create table attachment_versions (
  subject text primary key,
  last_seq bigint not null
);
