-- Analytics events, one row per accepted event. Partitioned by month of the event's own timestamp
-- (the projector creates each month's partition as facts for it arrive, old imported months
-- included), so time-bounded queries touch only the months they ask for and retention drops whole
-- partitions. Every value comes from the EventsIngested fact: a replay rebuilds identical rows.
create table events (
  id uuid not null,
  app_id uuid not null,
  project_id uuid not null,
  client_event_id uuid,
  session_id uuid not null,
  user_id text,
  api_key_id uuid not null,
  level text not null,
  source_module text,
  message text not null,
  screen_name text,
  custom_attributes jsonb not null,
  environment text not null,
  os_version text,
  app_version text,
  sdk_name text,
  sdk_version text,
  build_number text,
  device_model text,
  locale text,
  country_code text,
  is_dev boolean not null,
  "timestamp" timestamptz not null,
  received_at timestamptz not null
) partition by range ("timestamp");

-- Every query is scoped to the caller's apps and ordered or bounded by time: the list walks this
-- index per app, the count scans its time range, and a single event is found by (app, timestamp)
-- because the event id carries its timestamp (version 7 UUID), so no separate id index is kept.
create index events_by_app_time on events (app_id, "timestamp");
-- The selective filters of GET /v1/events; level, environment, screen_name and data_mode are
-- checked on the rows the time index yields.
create index events_by_app_user on events (app_id, user_id, "timestamp") where user_id is not null;
create index events_by_app_session on events (app_id, session_id, "timestamp");
