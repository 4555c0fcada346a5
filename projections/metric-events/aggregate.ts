import type { DatabasePool } from "slonik";
import { buildAggregation, type Aggregation, type Distribution, type MetricGroupBy } from "../../domain/metrics/aggregation.ts";
import { digestPercentiles, type DigestPart } from "../../domain/metrics/duration-digest.ts";
import { estimateUsers, MIN_SAMPLED_USERS, SAMPLE_BUCKETS, selectionThreshold } from "../../domain/metrics/sampling.ts";
import { inOneSnapshot, type Reader } from "../derived-events/snapshot.ts";
import { analyticsRead, analyticsRows } from "../derived-events/sql.ts";
import { countsQuery, errorsQuery, percentilesQuery, phaseCountRow, usersQuery } from "./aggregate-queries.ts";
import { digestPartRow, digestQuery } from "./digest-queries.ts";
import { sourceOf, type MetricFilters, type MetricScope } from "./scope.ts";

/**
 * Above `exactLimit` events in a selection unique users and percentiles are estimated; a sampled
 * read of users walks at most `scanLimit` events of the window, filtered or not (docs/decisions.md).
 */
const SAMPLING: Sampling = { exactLimit: 50_000, minSampledUsers: MIN_SAMPLED_USERS };

/** `scanLimit` defaults to `exactLimit`: a filtered read costs what an unfiltered one does. */
type Sampling = { exactLimit: number; minSampledUsers: number; scanLimit?: number };

const eventsIn = (counts: readonly { events: number }[]): number => counts.reduce((sum, row) => sum + row.events, 0);

const PERCENTILES = [0.5, 0.95, 0.99];

const NO_EVENTS: Distribution = { unique_users: 0, p50: null, p95: null, p99: null, sample_rate: 1 };

/** Exact users and percentiles: every event of the window, read in parallel (two connections, two cores). */
async function exactDistribution(pool: Reader, scope: MetricScope, slug: string, filters: MetricFilters): Promise<Distribution> {
  const [[users], [percentiles]] = await Promise.all([
    analyticsRead(pool, usersQuery(scope, slug, filters, null)),
    analyticsRead(pool, percentilesQuery(scope, slug, filters)),
  ]);
  const [p50 = null, p95 = null, p99 = null] = percentiles?.percentiles ?? [];
  return { unique_users: users?.users ?? 0, p50, p95, p99, sample_rate: 1 };
}

/**
 * Estimated users and percentiles: users from the sample buckets below `threshold`, percentiles
 * from `digest`, the duration digests of the whole hours and the exact durations of the edges.
 * Null when the sample holds too few users to trust.
 */
async function estimatedDistribution(
  pool: Reader,
  scope: MetricScope,
  slug: string,
  filters: MetricFilters,
  digest: readonly DigestPart[],
  threshold: number,
  minSampledUsers: number,
): Promise<Distribution | null> {
  const [users] = await analyticsRead(pool, usersQuery(scope, slug, filters, threshold));
  const sampledUsers = users?.users ?? 0;
  if (sampledUsers < minSampledUsers) return null;
  const [p50 = null, p95 = null, p99 = null] = digestPercentiles(digest, PERCENTILES);
  return { unique_users: estimateUsers(sampledUsers, threshold), p50, p95, p99, sample_rate: threshold / SAMPLE_BUCKETS };
}

/**
 * The aggregation object of one metric over a window. Counts, rates, averages, groups and errors
 * are exact: whole hours come from the hourly rollups (of one dimension when one is filtered or
 * grouped by), the partial hours at the edges from the events. Unique users and percentiles are
 * exact up to `sampling.exactLimit` events. Above it, when rollups can answer, unique users are
 * estimated from a sample of users and percentiles come from duration digests (within 1 %), with
 * `sample_rate` below 1 saying so; a sample with too few users, or filters no rollup answers,
 * read every event instead.
 */
export async function aggregateMetric(
  pool: DatabasePool,
  scope: MetricScope,
  slug: string,
  filters: MetricFilters,
  groupBy: MetricGroupBy | undefined,
  sampling: Sampling = SAMPLING,
): Promise<Aggregation> {
  // The distribution does not depend on the grouping: only the filters choose its source.
  const source = sourceOf(filters, undefined);
  const filtered = source?.kind === "dimension";
  // Every statement of one answer reads one snapshot: counts, errors and users read in parallel
  // then agree, with no projector or import commit between them.
  return inOneSnapshot(pool, async (reader) => {
    const [counts, errors, all, digest] = await Promise.all([
      analyticsRows(reader, countsQuery(scope, [slug], filters, groupBy), phaseCountRow),
      analyticsRead(reader, errorsQuery(scope, slug, filters)),
      // A sampled read walks the window's events, not only the filtered ones: it needs their number.
      filtered ? analyticsRows(reader, countsQuery(scope, [slug], {}, undefined), phaseCountRow) : null,
      // Read along with the counts (a few ms from rollups), so that an estimate waits for one more query only.
      source === null ? null : analyticsRows(reader, digestQuery(scope, slug, filters, source), digestPartRow),
    ]);
    const total = eventsIn(counts);
    let spread = NO_EVENTS;
    if (total > 0) {
      const threshold = source === null ? null : selectionThreshold(total, all ? eventsIn(all) : total, sampling.exactLimit, sampling.scanLimit ?? sampling.exactLimit);
      const estimate = digest !== null && threshold !== null ? await estimatedDistribution(reader, scope, slug, filters, digest, threshold, sampling.minSampledUsers) : null;
      spread = estimate ?? (await exactDistribution(reader, scope, slug, filters));
    }
    return buildAggregation(counts, errors, spread, groupBy);
  });
}
