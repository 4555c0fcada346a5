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
