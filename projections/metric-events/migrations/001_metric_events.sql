-- Metric events: one row per ingested or imported event whose message is metric:<slug>:<phase>.
-- Partitioned by month of the event's timestamp (the projector creates partitions as facts need
-- them). Every value comes from the EventsIngested fact, the id is the event's id: a replay
-- rebuilds identical rows.
create table metric_events (
  id uuid not null,
  project_id uuid not null,
  app_id uuid not null,
  client_event_id uuid,
  session_id uuid not null,
  user_id text,
  api_key_id uuid not null,
  metric_slug text not null,
  phase text not null,
  tracking_id text,
  duration_ms double precision,
  error text,
  attributes jsonb not null,
  environment text not null,
  os_version text,
  app_version text,
  device_model text,
  build_number text,
  is_dev boolean not null,
  "timestamp" timestamptz not null,
  received_at timestamptz not null,
  -- A stable pseudo-random bucket (0..1023) per user (per event when there is no user): a query
  -- over more events than it can read exactly estimates unique users and percentiles from the
  -- buckets below a threshold. Generated, so a claim that changes user_id moves the row's bucket.
  sample smallint not null generated always as (
    (('x' || substr(md5(coalesce(user_id, id::text)), 1, 4))::bit(16)::integer % 1024)::smallint) stored
) partition by range ("timestamp");

-- The list (newest first), exact aggregation over a window and the edges of a rolled-up window.
create index metric_events_by_slug_time on metric_events (project_id, metric_slug, "timestamp");
-- Estimates read only the sampled buckets of the window, from the index alone.
create index metric_events_by_sample on metric_events (project_id, metric_slug, sample, "timestamp")
  include (app_id, is_dev, user_id, duration_ms);
-- Filters of the list that a time walk would find too slowly, and claims (which move rows by
-- app and user id).
create index metric_events_by_user on metric_events (app_id, user_id, "timestamp");
create index metric_events_by_tracking on metric_events (project_id, tracking_id) where tracking_id is not null;
-- Imports update in place by (app_id, client_event_id).
create index metric_events_by_client_id on metric_events (app_id, client_event_id) where client_event_id is not null;

-- (app_id, client_event_id) of metric events received in the last 48 hours: an ingested
-- duplicate within the window is skipped. Partitioned by day of receipt, so expired days are
-- dropped whole. The projector is the only reader and writer.
create table metric_event_dedup (
  app_id uuid not null,
  client_event_id uuid not null,
  received_at timestamptz not null
) partition by range (received_at);
create index metric_event_dedup_by_pair on metric_event_dedup (app_id, client_event_id, received_at);

-- Counts per hour, written in the same transaction as the rows they count. A query over whole
-- hours with no filter but the app reads these instead of every event: the window's edges come
-- from metric_events, so answers stay exact.
create table metric_hourly (
  project_id uuid not null,
  metric_slug text not null,
  hour timestamptz not null,
  app_id uuid not null,
  is_dev boolean not null,
  phase text not null,
  events bigint not null,
  durations bigint not null,
  duration_sum numeric not null,
  primary key (project_id, metric_slug, hour, app_id, is_dev, phase)
);

-- Fail events per hour and error text, for the error breakdown.
create table metric_error_hourly (
  project_id uuid not null,
  metric_slug text not null,
  hour timestamptz not null,
  app_id uuid not null,
  is_dev boolean not null,
  error text not null,
  events bigint not null,
  primary key (project_id, metric_slug, hour, app_id, is_dev, error)
);
