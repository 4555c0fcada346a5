create table notifications (
  id uuid primary key,
  user_id uuid not null,
  type text not null,
  title text not null,
  body text not null,
  link text,
  team_id uuid,
  -- Internal payload (ids the notification is about); never in list answers.
  data jsonb not null,
  source_id text not null,
  read_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz not null
);
-- GET /v1/notifications: a user's visible ones, newest first, keyset over (created_at, id).
create index notifications_inbox on notifications (user_id, created_at desc, id desc) where deleted_at is null;
-- The unread count.
create index notifications_unread on notifications (user_id) where deleted_at is null and read_at is null;
-- notification_cleanup: soft-deleted ones by the time of their delete.
create index notifications_deleted on notifications (deleted_at) where deleted_at is not null;

-- One row per (notification, channel, device): the latest outcome, so a redelivered dispatch
-- skips what already went out. device_key is '' for channels without a device (email). status:
-- delivered; failed (to be retried); refused (given up on).
create table notification_deliveries (
  notification_id uuid not null,
  channel text not null,
  device_key text not null,
  status text not null,
  reason text,
  attempts integer not null,
  updated_at timestamptz not null,
  primary key (notification_id, channel, device_key)
);

create table devices (
  id uuid primary key,
  user_id uuid not null,
  token text not null,
  -- The device subject's token (a hash of the push token): one device per token.
  token_key text not null unique,
  platform text not null,
  environment text not null,
  app_version text,
  device_model text,
  os_version text,
  last_seen_at timestamptz not null,
  created_at timestamptz not null
);
create index devices_by_user on devices (user_id, last_seen_at desc, id desc);

-- Stream sequence of the last fact applied per inbox and device subject, moved with the rows:
-- commands on those subjects are decided on this read model's state, so on its version.
create table notification_versions (
  subject text primary key,
  last_seq bigint not null
);
