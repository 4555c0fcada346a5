import type { DatabasePool } from "slonik";
import { buildAggregation, type Aggregation, type Distribution, type MetricGroupBy } from "../../domain/metrics/aggregation.ts";
import { estimateUsers, MIN_SAMPLED_USERS, SAMPLE_BUCKETS, sampleThreshold } from "../../domain/metrics/sampling.ts";
import { analyticsRead, analyticsRows } from "../derived-events/sql.ts";
import { countsQuery, errorsQuery, percentilesQuery, phaseCountRow, usersQuery } from "./aggregate-queries.ts";
import { hasEventFilters, type MetricFilters, type MetricScope } from "./scope.ts";

/** Above `exactLimit` events in a window unique users and percentiles are estimated (docs/decisions.md). */
const SAMPLING = { exactLimit: 50_000, minSampledUsers: MIN_SAMPLED_USERS };

/** A distribution and how many distinct users were actually read (all of them when exact). */
type Read = Distribution & { sampledUsers: number };

const NO_EVENTS: Read = { unique_users: 0, p50: null, p95: null, p99: null, sample_rate: 1, sampledUsers: 0 };

/** Users and percentiles of the window, read in parallel (two connections, two cores). */
async function distribution(pool: DatabasePool, scope: MetricScope, slug: string, filters: MetricFilters, threshold: number | null): Promise<Read> {
  const [[users], [percentiles]] = await Promise.all([
    analyticsRead(pool, usersQuery(scope, slug, filters, threshold)),
    analyticsRead(pool, percentilesQuery(scope, slug, filters, threshold)),
  ]);
  const [p50 = null, p95 = null, p99 = null] = percentiles?.percentiles ?? [];
  const sampledUsers = users?.users ?? 0;
  return {
    unique_users: threshold === null ? sampledUsers : estimateUsers(sampledUsers, threshold),
    p50,
    p95,
    p99,
    sample_rate: threshold === null ? 1 : threshold / SAMPLE_BUCKETS,
    sampledUsers,
  };
}

/**
 * The aggregation object of one metric over a window. Counts, rates, averages, groups and errors
 * are exact: whole hours come from the hourly counts when no event-level filter asks for more.
 * Unique users and percentiles are exact up to `sampling.exactLimit` events, estimated from a
 * sample of users above it (when the sample holds enough users), with `sample_rate` saying so.
 */
export async function aggregateMetric(
  pool: DatabasePool,
  scope: MetricScope,
  slug: string,
  filters: MetricFilters,
  groupBy: MetricGroupBy | undefined,
  sampling = SAMPLING,
): Promise<Aggregation> {
  const [counts, errors] = await Promise.all([
    analyticsRows(pool, countsQuery(scope, [slug], filters, groupBy), phaseCountRow),
    analyticsRead(pool, errorsQuery(scope, slug, filters)),
  ]);
  const total = counts.reduce((sum, row) => sum + row.events, 0);
  let spread = NO_EVENTS;
  if (total > 0) {
    // The sample index covers app and data mode only: other filters read every matching event.
    const threshold = hasEventFilters(filters) ? null : sampleThreshold(total, sampling.exactLimit);
    spread = await distribution(pool, scope, slug, filters, threshold);
    if (threshold !== null && spread.sampledUsers < sampling.minSampledUsers) spread = await distribution(pool, scope, slug, filters, null);
  }
  return buildAggregation(counts, errors, spread, groupBy);
}
