-- Metric and funnel definitions of a project, decided on the team's subject like projects and apps.

create table metric_definitions (
  id uuid primary key,
  team_id uuid not null,
  project_id uuid not null,
  name text not null,
  slug text not null,
  description text,
  documentation text,
  schema_definition jsonb,
  aggregation_rules jsonb,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);
create unique index metric_definitions_slug on metric_definitions (project_id, slug);

create table funnel_definitions (
  id uuid primary key,
  team_id uuid not null,
  project_id uuid not null,
  name text not null,
  slug text not null,
  description text,
  steps jsonb not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);
create unique index funnel_definitions_active_slug on funnel_definitions (project_id, slug) where deleted_at is null;
create index funnel_definitions_by_project on funnel_definitions (project_id, created_at) where deleted_at is null;
