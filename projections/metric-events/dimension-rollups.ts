import { sql, type FragmentSqlToken } from "slonik";
import { DIGEST_LN_GAMMA, DIGEST_MIN_MS, DIGEST_ZERO_BIN } from "../../domain/metrics/duration-digest.ts";

/**
 * The digest bin of `duration_ms` (domain/metrics/duration-digest.ts), null without a duration.
 * Computed here and in the 002 migration's backfill only, so a duration always lands in the same
 * bin, whoever writes it.
 */
export const durationBin = sql.fragment`
  case when duration_ms is null then null
       when duration_ms < ${DIGEST_MIN_MS} then ${DIGEST_ZERO_BIN}
       else ceil(ln(duration_ms) / ${DIGEST_LN_GAMMA}::float8)::integer end`;

/**
 * Adds the signed bin counts `source` (rows of key, `period`, bin, n) to the digests of `table`,
 * one upsert per digest: bins are summed with the stored ones, and a bin that reaches 0 goes.
 */
const digestUpsert = (table: string, period: "hour" | "day", source: FragmentSqlToken) => {
  const key = sql.fragment`project_id, metric_slug, dimension, ${sql.identifier([period])}, value, app_id, is_dev`;
  return sql.fragment`
    insert into ${sql.identifier([table])} as h (${key}, bins, counts)
    select ${key}, array_agg(bin order by bin), array_agg(n order by bin)
      from ${source} where n <> 0 group by 1, 2, 3, 4, 5, 6, 7
    on conflict (${key}) do update
      set (bins, counts) = (
        select coalesce(array_agg(bin order by bin), '{}'), coalesce(array_agg(n order by bin), '{}')
          from (
            select bin, sum(n)::bigint as n
              from (select * from unnest(h.bins, h.counts) union all select * from unnest(excluded.bins, excluded.counts)) both_digests(bin, n)
             group by bin having sum(n) <> 0
          ) merged)`;
};

/**
 * CTEs that add the signed rows of `changes` (with their `bin`) to the rollups by dimension (002 migration): counts
 * and error counts per dimension value, and the duration digests of every event and of every
 * dimension value. A digest's bins move by the signed counts; a bin that reaches 0 is dropped,
 * so an import that replaces an event leaves the digest its new rows alone would give.
 */
export const dimensionRollups = sql.fragment`
  dims as (
    select c.project_id, c.metric_slug, d.dimension, date_trunc('hour', c."timestamp", 'UTC') as hour, d.value, c.app_id, c.is_dev,
           c.phase, c.duration_ms, c.error, c.bin, c.sign
      from changes c
     cross join lateral (values ('app_version', c.app_version), ('device_model', c.device_model),
                                ('os_version', c.os_version), ('environment', c.environment)) d(dimension, value)
  ),
  dim_counted as (
    insert into metric_dim_hourly as h (project_id, metric_slug, dimension, hour, value, app_id, is_dev, phase, events, durations, duration_sum)
    select project_id, metric_slug, dimension, hour, value, app_id, is_dev, phase,
           sum(sign), sum(case when duration_ms is null then 0 else sign end), coalesce(sum(sign * duration_ms::numeric), 0)
      from dims group by 1, 2, 3, 4, 5, 6, 7, 8
    on conflict (project_id, metric_slug, dimension, hour, value, app_id, is_dev, phase) do update
      set events = h.events + excluded.events, durations = h.durations + excluded.durations,
          duration_sum = h.duration_sum + excluded.duration_sum
  ),
  dim_failed as (
    insert into metric_dim_error_hourly as h (project_id, metric_slug, dimension, hour, value, app_id, is_dev, error, events)
    select project_id, metric_slug, dimension, hour, value, app_id, is_dev, error, sum(sign)
      from dims where phase = 'fail' and error is not null group by 1, 2, 3, 4, 5, 6, 7, 8
    on conflict (project_id, metric_slug, dimension, hour, value, app_id, is_dev, error) do update set events = h.events + excluded.events
  ),
  binned as (
    select project_id, metric_slug, dimension, hour, value, app_id, is_dev, bin, sum(sign) as n
      from dims where bin is not null group by 1, 2, 3, 4, 5, 6, 7, 8
    union all
    select project_id, metric_slug, '', date_trunc('hour', "timestamp", 'UTC'), null, app_id, is_dev, bin, sum(sign)
      from changes where bin is not null group by 1, 2, 3, 4, 5, 6, 7, 8
  ),
  hourly_digests as (${digestUpsert("metric_duration_hourly", "hour", sql.fragment`binned`)}),
  daily_digests as (${digestUpsert("metric_duration_daily", "day", sql.fragment`
    (select project_id, metric_slug, dimension, date_trunc('day', hour, 'UTC') as day, value, app_id, is_dev, bin, sum(n)::bigint as n
       from binned group by 1, 2, 3, 4, 5, 6, 7, 8) by_day`)})`;
