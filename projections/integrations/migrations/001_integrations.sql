-- One row per (project, provider) from its creation on; deleted_at set by a soft deletion and
-- cleared by a restore (same id). Every value comes from the facts, so a replay rebuilds identical
-- rows, the webhook secret included: it lives here, never in `config`, and only webhook_setup and
-- the webhook check read it.
create table integrations (
  id uuid primary key,
  team_id uuid not null,
  project_id uuid not null,
  provider text not null,
  config jsonb not null,
  webhook_secret text not null,
  enabled boolean not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz,
  unique (project_id, provider)
);

-- The daily sync walks the enabled integrations of one provider.
create index integrations_enabled on integrations (provider) where deleted_at is null and enabled;

-- Stream sequence of the last fact on each project's integrations subject, written with the rows:
-- the API reads it as the expected sequence of the subject's next append.
create table integration_versions (
  subject text primary key,
  last_seq bigint not null
);
