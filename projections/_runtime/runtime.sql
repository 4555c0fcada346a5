create table if not exists projection_generations (
  projection text primary key,
  active_generation integer not null
);

create table if not exists projection_checkpoints (
  projection text not null,
  generation integer not null,
  stream text not null,
  last_seq bigint not null default 0,
  updated_at timestamptz not null default now(),
  primary key (projection, generation)
);

create table if not exists parked_facts (
  projection text not null,
  generation integer not null,
  seq bigint not null,
  subject text not null,
  error text not null,
  data bytea not null,
  parked_at timestamptz not null default now(),
  primary key (projection, generation, seq)
);

create table if not exists schema_migrations (
  schema_name text not null,
  migration text not null,
  applied_at timestamptz not null default now(),
  primary key (schema_name, migration)
);

-- Written by the API in batches, not by facts: key usage is telemetry, so it survives replays.
create table if not exists api_key_usage (
  key_id uuid primary key,
  last_used_at timestamptz not null
);
