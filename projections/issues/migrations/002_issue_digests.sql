-- The digests sent, one row per project and period: the digest decision reads the last period's
-- end so that a second run (or a second worker) in one period sends nothing.
create table issue_digests (
  project_id uuid not null,
  period_end timestamptz not null,
  period_start timestamptz not null,
  frequency text not null,
  issue_count integer not null,
  occurrence_count integer not null,
  created_at timestamptz not null,
  primary key (project_id, period_end)
);
