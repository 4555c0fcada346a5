-- Hourly rollups by one event field (a "dimension": app_version, device_model, os_version,
-- environment), so a query filtered or grouped by one of them adds up whole hours instead of
-- reading every event; and mergeable duration digests, so percentiles do not need the events
-- either. Written in the statement that writes the rows they count (write.ts), like
-- metric_hourly. `value` is null for events without the field: the keys treat nulls as equal.
-- The key leads with (project, metric, dimension, hour): a query reads one dimension's hours,
-- and retention deletes one dimension's expired hours as one index range.
create table metric_dim_hourly (
  project_id uuid not null,
  metric_slug text not null,
  dimension text not null,
  hour timestamptz not null,
  value text,
  app_id uuid not null,
  is_dev boolean not null,
  phase text not null,
  events bigint not null,
  durations bigint not null,
  duration_sum numeric not null,
  -- Covering: a grouping by a dimension reads ~14,000 rows over 30 days, from the index alone
  -- where autovacuum has marked them visible.
  constraint metric_dim_hourly_key unique nulls not distinct (project_id, metric_slug, dimension, hour, value, app_id, is_dev, phase)
    include (events, durations, duration_sum)
);

-- Fail events per hour, dimension value and error text, for the error breakdown of a filtered query.
create table metric_dim_error_hourly (
  project_id uuid not null,
  metric_slug text not null,
  dimension text not null,
  hour timestamptz not null,
  value text,
  app_id uuid not null,
  is_dev boolean not null,
  error text not null,
  events bigint not null,
  constraint metric_dim_error_hourly_key unique nulls not distinct (project_id, metric_slug, dimension, hour, value, app_id, is_dev, error)
    include (events)
);

-- Durations per hour as a digest (domain/metrics/duration-digest.ts): `counts[i]` durations in
-- log bin `bins[i]`, bins ascending, none with count 0. Dimension '' (value null) holds every
-- event of the hour; the others one value of that dimension. Not per phase: percentiles are over
-- every duration of the selection.
create table metric_duration_hourly (
  project_id uuid not null,
  metric_slug text not null,
  dimension text not null,
  hour timestamptz not null,
  value text,
  app_id uuid not null,
  is_dev boolean not null,
  bins integer[] not null,
  counts bigint[] not null,
  constraint metric_duration_hourly_key unique nulls not distinct (project_id, metric_slug, dimension, hour, value, app_id, is_dev)
);

-- The same digests per UTC day: a 30-day window merges ~30 daily digests and the hours of its
-- partial days instead of ~720 hourly ones (each ~200 bins).
create table metric_duration_daily (
  project_id uuid not null,
  metric_slug text not null,
  dimension text not null,
  day timestamptz not null,
  value text,
  app_id uuid not null,
  is_dev boolean not null,
  bins integer[] not null,
  counts bigint[] not null,
  constraint metric_duration_daily_key unique nulls not distinct (project_id, metric_slug, dimension, day, value, app_id, is_dev)
);

-- Unique users of a query filtered by one dimension are estimated from the sample buckets too
-- (aggregate.ts): the sample index carries the dimensions so it still answers alone. Durations
-- left it: percentiles above the exact limit come from the digests.
drop index metric_events_by_sample;
create index metric_events_by_sample on metric_events (project_id, metric_slug, sample, "timestamp")
  include (app_id, is_dev, user_id, app_version, device_model, os_version, environment);

-- A generation that already holds events gets their rollups here, with the bins write.ts
-- computes (the same expression, ln γ of α = 0.01 written as the double the code passes).
create temporary table dimensioned on commit drop as
  select e.project_id, e.metric_slug, d.dimension, date_trunc('hour', e."timestamp", 'UTC') as hour, d.value, e.app_id, e.is_dev,
         e.phase, e.duration_ms, e.error,
         case when e.duration_ms is null then null
              when e.duration_ms < 0.001 then -1000
              else ceil(ln(e.duration_ms) / 0.020000666706669435::float8)::integer end as bin
    from metric_events e
   cross join lateral (values ('app_version', e.app_version), ('device_model', e.device_model),
                              ('os_version', e.os_version), ('environment', e.environment)) d(dimension, value);

insert into metric_dim_hourly (project_id, metric_slug, dimension, hour, value, app_id, is_dev, phase, events, durations, duration_sum)
select project_id, metric_slug, dimension, hour, value, app_id, is_dev, phase, count(*), count(duration_ms), coalesce(sum(duration_ms::numeric), 0)
  from dimensioned group by 1, 2, 3, 4, 5, 6, 7, 8;

insert into metric_dim_error_hourly (project_id, metric_slug, dimension, hour, value, app_id, is_dev, error, events)
select project_id, metric_slug, dimension, hour, value, app_id, is_dev, error, count(*)
  from dimensioned where phase = 'fail' and error is not null group by 1, 2, 3, 4, 5, 6, 7, 8;

-- Every duration once under dimension '' (taken from the app_version copy) and once per dimension.
insert into metric_duration_hourly (project_id, metric_slug, dimension, hour, value, app_id, is_dev, bins, counts)
select project_id, metric_slug, dimension, hour, value, app_id, is_dev, array_agg(bin order by bin), array_agg(n order by bin)
  from (
    select project_id, metric_slug, dimension, hour, value, app_id, is_dev, bin, count(*) as n
      from dimensioned where bin is not null group by 1, 2, 3, 4, 5, 6, 7, 8
    union all
    select project_id, metric_slug, '', hour, null, app_id, is_dev, bin, count(*)
      from dimensioned where bin is not null and dimension = 'app_version' group by 1, 2, 3, 4, 5, 6, 7, 8
  ) binned
 group by 1, 2, 3, 4, 5, 6, 7;

insert into metric_duration_daily (project_id, metric_slug, dimension, day, value, app_id, is_dev, bins, counts)
select project_id, metric_slug, dimension, day, value, app_id, is_dev, array_agg(bin order by bin), array_agg(n order by bin)
  from (
    select h.project_id, h.metric_slug, h.dimension, date_trunc('day', h.hour, 'UTC') as day, h.value, h.app_id, h.is_dev, d.bin, sum(d.n)::bigint as n
      from metric_duration_hourly h cross join lateral unnest(h.bins, h.counts) d(bin, n)
     group by 1, 2, 3, 4, 5, 6, 7, 8
  ) binned
 group by 1, 2, 3, 4, 5, 6, 7;
