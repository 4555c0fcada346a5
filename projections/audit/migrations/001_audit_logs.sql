create table audit_logs (
  id uuid primary key,
  team_id uuid not null,
  actor_type text not null,
  actor_id text,
  action text not null,
  resource_type text not null,
  resource_id text not null,
  changes jsonb,
  metadata jsonb,
  "timestamp" timestamptz not null
);
create index audit_logs_by_team on audit_logs (team_id, "timestamp" desc, id desc);
