-- (app_id, client_event_id) of the events kept in the last 48 hours (by received_at): an event
-- whose pair is here within the window is a duplicate and skipped. Partitioned by day of receipt so
-- the projector forgets expired pairs by dropping whole partitions instead of deleting rows. Only
-- the projector, the single writer, reads it, so a plain (non-unique) index is enough: within one
-- day's partition a pair can occur once.
create table event_dedup (
  app_id uuid not null,
  client_event_id uuid not null,
  event_id uuid not null,
  received_at timestamptz not null
) partition by range (received_at);

create index event_dedup_by_pair on event_dedup (app_id, client_event_id, received_at);
