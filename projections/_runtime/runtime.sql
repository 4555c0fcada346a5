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

-- An INGEST read model can be split into partitions by project (fact-partitions.ts): one row per
-- partition, `partitions` of them, each with its own checkpoint. A read model stands at the lowest
-- of its partitions' checkpoints. Unsplit read models have the one row of partition 0.
alter table projection_checkpoints add column if not exists partition integer not null default 0;
alter table projection_checkpoints add column if not exists partitions integer not null default 1;
do $$
begin
  if exists (select from pg_index i join pg_class c on c.oid = i.indexrelid
              where c.relname = 'projection_checkpoints_pkey' and c.relnamespace = 'public'::regnamespace and i.indnatts = 2) then
    alter table projection_checkpoints drop constraint projection_checkpoints_pkey, add primary key (projection, generation, partition);
  end if;
end $$;

-- The projector instances running now, each by its lock connection (projector-locks.ts): an
-- instance is alive while that backend is, so a killed process leaves at once, with its locks.
-- Instances share the partitions of each read model they run (projector-share.ts).
create table if not exists projector_instances (
  pid integer not null,
  backend_start timestamptz not null,
  projections text[] not null,
  primary key (pid, backend_start)
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
