-- Control-plane read model. Every row id and timestamp comes from the facts, so a replay rebuilds
-- identical rows. Tables are created inside the generation schema (search_path).

create table aggregate_versions (
  subject text primary key,
  last_seq bigint not null
);

create table users (
  id uuid primary key,
  email text not null unique,
  name text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

create table teams (
  id uuid primary key,
  name text not null,
  slug text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);
create unique index teams_active_slug on teams (slug) where deleted_at is null;

create table team_members (
  team_id uuid not null,
  user_id uuid not null,
  role text not null,
  joined_at timestamptz not null,
  primary key (team_id, user_id)
);
create index team_members_by_user on team_members (user_id);

create table api_keys (
  id uuid primary key,
  team_id uuid not null,
  app_id uuid,
  key_type text not null,
  name text not null,
  secret text not null unique,
  permissions text[] not null,
  created_by uuid,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  expires_at timestamptz,
  deleted_at timestamptz
);
create index api_keys_by_team on api_keys (team_id, created_at) where deleted_at is null;
