-- App users of each project, built from the INGEST stream: ingest batches (activity) and identity
-- facts (claims, properties) in one order. Every value comes from the facts, so a replay rebuilds
-- identical rows. Tables are created inside the generation schema (search_path).

-- Substring search on user ids (`search`) uses a trigram index. The extension is database-wide,
-- so it lives in public, never in a generation schema a replay drops.
create extension if not exists pg_trgm with schema public;

-- One row per (project, user id). Each last_* value keeps the event time it came from (the *_at
-- columns): a batch arriving late with older events never overwrites a newer value.
create table app_users (
  id uuid primary key,
  project_id uuid not null,
  user_id text not null,
  is_anonymous boolean not null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  last_country_code text,
  last_country_at timestamptz,
  last_app_version text,
  last_app_version_at timestamptz,
  last_sdk_name text,
  last_sdk_version text,
  last_sdk_at timestamptz,
  last_locale text,
  last_locale_at timestamptz,
  last_preferred_language text,
  last_preferred_language_at timestamptz,
  is_dev boolean not null default false,
  is_dev_at timestamptz,
  claimed_from text[],
  properties jsonb not null default '{}',
  -- free / trial / paid from the subscription provider's properties: a subscriber whose period
  -- type is trial is on trial, any other subscriber pays, everyone else is free.
  billing_status text generated always as (
    case when lower(properties ->> 'sp_subscriber') = 'true'
         then case when lower(properties ->> 'sp_period_type') = 'trial' then 'trial' else 'paid' end
         else 'free' end) stored,
  -- Stream sequence of the last claim that merged another record into this one (0: none). A
  -- property change decided before that merge is superseded instead of applied.
  merged_at_seq bigint not null default 0,
  unique (project_id, user_id)
);
-- Lists walk a project's users newest first; filters are checked on the rows the walk yields.
create index app_users_by_project_seen on app_users (project_id, last_seen_at desc, id desc);
create index app_users_search on app_users using gin (user_id public.gin_trgm_ops);

-- The apps a user was seen in (or created through), one row per (project, user, app).
create table app_user_apps (
  project_id uuid not null,
  user_id text not null,
  app_id uuid not null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  primary key (project_id, user_id, app_id)
);
create index app_user_apps_by_app on app_user_apps (app_id, user_id);

-- Claimed anonymous ids: a claim is permanent, and activity or property changes that still
-- name the anonymous id afterwards belong to the claiming user.
create table app_user_claims (
  project_id uuid not null,
  anonymous_id text not null,
  user_id text not null,
  claimed_at timestamptz not null,
  primary key (project_id, anonymous_id)
);

-- Stream sequence of the last identity fact on each user's identity subject, written in the same
-- transaction as the rows: the API reads it as the expected sequence of its next append.
create table identity_versions (
  subject text primary key,
  last_seq bigint not null
);

-- Identity facts that were not applied because the user changed under the decision (a claim
-- merged into it, or it was claimed). Rare; the API that appended one decides again.
create table identity_superseded (
  fact_id uuid primary key,
  seq bigint not null,
  reason text not null
);

-- The base languages each app ships, as its SDK reports them (latest report wins).
create table app_languages (
  app_id uuid primary key,
  project_id uuid not null,
  languages text[] not null,
  reported_at timestamptz not null
);
