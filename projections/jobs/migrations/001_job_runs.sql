create table job_runs (
  id uuid primary key,
  job_type text not null,
  status text not null,
  team_id uuid,
  project_id uuid,
  triggered_by text not null,
  params jsonb not null,
  notify boolean not null,
  progress_processed integer not null default 0,
  progress_total integer,
  progress_message text,
  result jsonb,
  error text,
  -- Until when the worker holding a running run is trusted to be alive (heartbeats move it).
  lease_until timestamptz,
  started_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz not null
);
-- GET /v1/teams/:teamId/jobs: newest first, keyset over (created_at, id).
create index job_runs_by_team on job_runs (team_id, created_at desc, id desc) where team_id is not null;
-- The worker's sweep for runs whose worker stopped responding.
create index job_runs_running_leases on job_runs (lease_until) where status = 'running';
-- The worker's sweep for pending runs no worker took.
create index job_runs_pending on job_runs (created_at) where status = 'pending';
