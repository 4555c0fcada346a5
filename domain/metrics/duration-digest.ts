/**
 * A mergeable digest of durations: a count per logarithmic bin. Bin `k` holds the durations in
 * (γ^(k-1), γ^k] with γ = (1 + α) / (1 - α), and stands for 2γ^k / (γ + 1), which is within α of
 * every duration in it. Digests add up bin by bin (an import that removes an event subtracts
 * it), so hourly digests of any window merge into the digest of the window.
 *
 * The projection computes bins in SQL (`durationBin` in projections/metric-events): the bin of a
 * stored duration must not depend on who computed it, so this module only turns bins back into
 * durations. Changing α changes every bin: it needs a replay of the metric_events read model.
 */

/** The relative error α of a duration read from its bin. */
export const DIGEST_RELATIVE_ERROR = 0.01;

const GAMMA = (1 + DIGEST_RELATIVE_ERROR) / (1 - DIGEST_RELATIVE_ERROR);

/** ln γ, the divisor of the bin expression (passed to SQL as a parameter). */
export const DIGEST_LN_GAMMA = Math.log(GAMMA);

/**
 * Durations below this (ms) share one bin read as 0: answers have two decimals, so the absolute
 * error stays below what they show. Every longer duration has a bin within α.
 */
export const DIGEST_MIN_MS = 0.001;
export const DIGEST_ZERO_BIN = -1_000;

/** The duration a bin stands for. */
export const binValue = (bin: number): number => (bin === DIGEST_ZERO_BIN ? 0 : (2 * GAMMA ** bin) / (GAMMA + 1));

/** How many events have a duration: `at` is a bin of the digest or, for `exact`, a duration itself. */
export type DigestPart = { kind: "bin" | "exact"; at: number; count: number };

/**
 * Continuous percentiles (as `percentile_cont`: the value at rank p·(n-1), interpolated between
 * its neighbours) of the durations the parts hold, each bin read as its value. Every duration is
 * read within α of itself and interpolation keeps the bound, so each percentile is within α of
 * the exact one (exactly it when every part is exact). Null when there is no duration.
 */
export function digestPercentiles(parts: readonly DigestPart[], fractions: readonly number[]): (number | null)[] {
  const points = parts
    .filter((part) => part.count > 0)
    .map((part) => ({ value: part.kind === "bin" ? binValue(part.at) : part.at, count: part.count }))
    .sort((a, b) => a.value - b.value);
  const total = points.reduce((sum, point) => sum + point.count, 0);
  if (total === 0) return fractions.map(() => null);
  /** The value of the `rank`-th duration (0-based) in ascending order. */
  const valueAt = (rank: number): number => {
    let seen = 0;
    for (const point of points) {
      seen += point.count;
      if (rank < seen) return point.value;
    }
    return points[points.length - 1]!.value;
  };
  return fractions.map((fraction) => {
    const rank = fraction * (total - 1);
    const below = Math.floor(rank);
    const low = valueAt(below);
    const high = valueAt(Math.ceil(rank));
    return low + (rank - below) * (high - low);
  });
}

const DAY_MS = 86_400_000;

/**
 * Splits a window's whole hours `[rollupFrom, rollupTo)` for the digests: whole UTC days
 * `[dayFrom, dayTo)` from the daily digests, the hours before and after them from the hourly
 * ones. Without a whole day, dayFrom = dayTo = rollupTo leaves every hour to the hourly digests.
 */
export function splitDays({ rollupFrom, rollupTo }: { rollupFrom: Date; rollupTo: Date }): { dayFrom: Date; dayTo: Date } {
  const from = Math.ceil(rollupFrom.getTime() / DAY_MS) * DAY_MS;
  const to = Math.floor(rollupTo.getTime() / DAY_MS) * DAY_MS;
  if (from >= to) return { dayFrom: rollupTo, dayTo: rollupTo };
  return { dayFrom: new Date(from), dayTo: new Date(to) };
}
