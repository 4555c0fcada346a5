-- From here on the ingest dedup finds kept events in `events` itself, through its
-- (app_id, client_event_id) index, in the monthly partitions an event received within the window
-- can be in (projections/events/reach.ts). `event_dedup` keeps only the pairs of kept events whose
-- timestamp lies more than 30 days before their receipt (imports of older events), which that
-- probe does not reach. The table and its index stay as they are; the rows an earlier version wrote
-- for every kept event remain correct (each has its event in `events`) and leave with their day
-- partitions once they expire.
comment on table event_dedup is
  'Pairs of kept events whose timestamp is more than 30 days before their receipt: the ingest dedup probe of events does not reach them.';
