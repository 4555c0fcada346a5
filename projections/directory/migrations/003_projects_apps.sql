-- Projects and apps of a team. Both live on the team's aggregate subject, so slug uniqueness,
-- colour assignment and cascades are decided against one consistent team state.

create table projects (
  id uuid primary key,
  team_id uuid not null,
  name text not null,
  slug text not null,
  color text not null,
  retention_days_events integer,
  retention_days_metrics integer,
  retention_days_funnels integer,
  attachment_user_quota_bytes bigint,
  attachment_project_quota_bytes bigint,
  issue_alert_frequency text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);
create unique index projects_active_slug on projects (team_id, slug) where deleted_at is null;
create index projects_by_team on projects (team_id, created_at) where deleted_at is null;

create table apps (
  id uuid primary key,
  team_id uuid not null,
  project_id uuid not null,
  name text not null,
  platform text not null,
  bundle_id text,
  -- The app's generated client key (api_keys.id); its secret is the app's client_secret.
  client_key_id uuid not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);
create index apps_by_project on apps (project_id, created_at) where deleted_at is null;
create index apps_by_team on apps (team_id, created_at) where deleted_at is null;
create index api_keys_by_app on api_keys (app_id) where deleted_at is null;
