import { sql } from "slonik";
import { z } from "zod";
import { splitHours } from "../../domain/analytics/window.ts";
import type { RollupSource } from "../../domain/metrics/dimensions.ts";
import { splitDays } from "../../domain/metrics/duration-digest.ts";
import { and, iso } from "../derived-events/sql.ts";
import { timeParts } from "./aggregate-queries.ts";
import { eventScope, rollupScope, type MetricFilters, type MetricScope } from "./scope.ts";

export const digestPartRow = z.object({ kind: z.enum(["bin", "exact"]), at: z.number(), count: z.number() });

/**
 * The durations of the window as digest parts (domain/metrics/duration-digest.ts): the bins of
 * its whole days and of its other whole hours, added up from metric_duration_daily and
 * metric_duration_hourly, and the exact durations of its partial hours, counted per value, from
 * metric_events. Rows of `digestPartRow`, read with analyticsRows.
 */
export function digestQuery(scope: MetricScope, slug: string, filters: MetricFilters, source: NonNullable<RollupSource>) {
  const hours = splitHours(scope);
  const { dayFrom, dayTo } = splitDays(hours);
  const place = rollupScope(scope, [slug], source, true);
  const digests = sql.fragment`
    select h.bins, h.counts from metric_duration_daily h
     where ${and([...place, sql.fragment`h.day >= ${iso(dayFrom)} and h.day < ${iso(dayTo)}`])}
    union all
    select h.bins, h.counts from metric_duration_hourly h
     where ${and([
       ...place,
       sql.fragment`((h.hour >= ${iso(hours.rollupFrom)} and h.hour < ${iso(dayFrom)}) or (h.hour >= ${iso(dayTo)} and h.hour < ${iso(hours.rollupTo)}))`,
     ])}`;
  return sql.fragment`
    select 'bin' as kind, bin::float8 as at, sum(n)::bigint as count
      from (select unnest(bins) as bin, unnest(counts) as n from (${digests}) digests) bins
     group by bin
    union all
    select 'exact', e.duration_ms, count(*)
      from metric_events e
     where ${and([...eventScope(scope, [slug], filters), timeParts(scope, true).raw, sql.fragment`e.duration_ms is not null`])}
     group by e.duration_ms`;
}
