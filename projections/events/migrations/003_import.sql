-- Imports update an event in place by (app_id, client_event_id), whatever its age, and the API
-- classifies each imported event as new or updated before appending: both find the stored event
-- through this index, one probe per monthly partition.
create index events_by_app_client_event on events (app_id, client_event_id) where client_event_id is not null;

-- An event id's time prefix names its timestamp, and GET /v1/events/:id finds the row through it.
-- An import that changes a stored event's timestamp keeps the id, so the new timestamp is kept
-- here (only for such events; none for ingested ones) and the lookup reads it first.
create table event_retimed (
  id uuid primary key,
  "timestamp" timestamptz not null
);
