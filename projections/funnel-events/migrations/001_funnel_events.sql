-- Funnel events: one row per ingested or imported event whose message is step:<step_name>, with
-- the screen it was sent from. Every value comes from the EventsIngested fact, the id is the
-- event's id: a replay rebuilds identical rows.
--
-- Partitioned by a hash of the user, not by month: a funnel query groups the window's events by
-- user, and with the user as partition key Postgres aggregates each partition on its own, in
-- parallel and with hash tables an eighth the size (partitionwise aggregation). Time ranges are
-- served by the (project, step, time) index instead of partition pruning; retention is per
-- project, so expired rows are deleted, not dropped by partition either way.
create table funnel_events (
  id uuid not null,
  project_id uuid not null,
  app_id uuid not null,
  client_event_id uuid,
  session_id uuid not null,
  user_id text,
  step_name text not null,
  screen_name text,
  environment text not null,
  app_version text,
  os_version text,
  device_model text,
  is_dev boolean not null,
  "timestamp" timestamptz not null,
  received_at timestamptz not null
) partition by hash (user_id);

create table funnel_events_h0 partition of funnel_events for values with (modulus 8, remainder 0);
create table funnel_events_h1 partition of funnel_events for values with (modulus 8, remainder 1);
create table funnel_events_h2 partition of funnel_events for values with (modulus 8, remainder 2);
create table funnel_events_h3 partition of funnel_events for values with (modulus 8, remainder 3);
create table funnel_events_h4 partition of funnel_events for values with (modulus 8, remainder 4);
create table funnel_events_h5 partition of funnel_events for values with (modulus 8, remainder 5);
create table funnel_events_h6 partition of funnel_events for values with (modulus 8, remainder 6);
create table funnel_events_h7 partition of funnel_events for values with (modulus 8, remainder 7);

-- A funnel query reads the events of its steps' names in the window. The included columns let it
-- do so from the index alone (every filter and breakdown of the query is among them).
create index funnel_events_by_step on funnel_events (project_id, step_name, "timestamp")
  include (user_id, app_id, is_dev, screen_name, environment, app_version);
-- Steps that name only a screen.
create index funnel_events_by_screen on funnel_events (project_id, screen_name, "timestamp")
  include (user_id, app_id, is_dev, step_name, environment, app_version) where screen_name is not null;
-- One user's events after a time (closed funnels, when a step came before the previous one), and
-- claims (which move rows by app and user id); both touch one partition.
create index funnel_events_by_user on funnel_events (app_id, user_id, "timestamp");
-- Imports update in place by (app_id, client_event_id).
create index funnel_events_by_client_id on funnel_events (app_id, client_event_id) where client_event_id is not null;

-- (app_id, client_event_id) of funnel events received in the last 48 hours: an ingested duplicate
-- within the window is skipped. Partitioned by day of receipt, expired days are dropped whole.
create table funnel_event_dedup (
  app_id uuid not null,
  client_event_id uuid not null,
  received_at timestamptz not null
) partition by range (received_at);
create index funnel_event_dedup_by_pair on funnel_event_dedup (app_id, client_event_id, received_at);
