/** Rows carry a bucket 0..1023 derived from their user (see the metric_events migration). */
export const SAMPLE_BUCKETS = 1024;

/**
 * Exact unique users and percentiles read every event of the window; above `exactLimit` events
 * they are estimated from the buckets below the returned threshold, about `exactLimit` events.
 * Returns null when the window is small enough to be exact.
 */
export function sampleThreshold(totalEvents: number, exactLimit: number): number | null {
  if (totalEvents <= exactLimit) return null;
  return Math.max(1, Math.floor((SAMPLE_BUCKETS * exactLimit) / totalEvents));
}

/**
 * Sampling by user keeps every event of a sampled user, so distinct users scale up by the rate.
 * With few sampled users the estimate is too rough to show: the caller reads exactly instead.
 */
export const MIN_SAMPLED_USERS = 1_000;

export function estimateUsers(sampledUsers: number, threshold: number): number {
  return Math.round((sampledUsers * SAMPLE_BUCKETS) / threshold);
}

/**
 * The threshold for a selection of `selected` of the window's `all` events (a filter on one
 * dimension): the usual one for `selected`, lowered so that the sampled read, which walks every
 * sampled event of the window and keeps the selected ones, scans at most `scanLimit` of them. A
 * narrow filter gets a smaller sample (still trusted only with MIN_SAMPLED_USERS) rather than a
 * slower read. Null when the selection is small enough to be exact.
 */
export function selectionThreshold(selected: number, all: number, exactLimit: number, scanLimit: number): number | null {
  const threshold = sampleThreshold(selected, exactLimit);
  if (threshold === null) return null;
  return Math.max(1, Math.min(threshold, Math.floor((SAMPLE_BUCKETS * scanLimit) / Math.max(all, 1))));
}
