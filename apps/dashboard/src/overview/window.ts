/** The time ranges of the overview and the bucket each range's charts count per. */
export const RANGES = {
  "6h": { label: "6 hours", buckets: 6, stepHours: 1 },
  "24h": { label: "24 hours", buckets: 24, stepHours: 1 },
  "7d": { label: "7 days", buckets: 28, stepHours: 6 },
  "30d": { label: "30 days", buckets: 30, stepHours: 24 },
} as const;

export type RangeKey = keyof typeof RANGES;
export const DEFAULT_RANGE: RangeKey = "24h";

export const DATA_MODES = ["production", "development", "all"] as const;
export type DataMode = (typeof DATA_MODES)[number];

export const rangeOf = (value: string | null): RangeKey => (value !== null && value in RANGES ? (value as RangeKey) : DEFAULT_RANGE);
export const dataModeOf = (value: string | null): DataMode => DATA_MODES.find((mode) => mode === value) ?? "production";

/** A bucket from `start` (inclusive) to `end` (exclusive), in epoch milliseconds; `since` is `start` for the API. */
export type Bucket = { start: number; end: number; since: string };
/** A range's buckets; its end is always now, asked for when each request is sent. */
export type TimeWindow = { since: string; buckets: Bucket[]; stepHours: number };

const HOUR_MS = 3_600_000;

/**
 * The range's buckets, ending with the one that holds `now`. Boundaries fall on whole local hours
 * (midnight for days, 00/06/12/18 for six hours) so a bucket keeps its meaning between reloads.
 * The buckets are of equal length counted back from there: across a clock change the older ones
 * start an hour off the local boundary, which the chart accepts.
 */
export function windowOf(range: RangeKey, now: Date): TimeWindow {
  const { buckets: count, stepHours } = RANGES[range];
  const end = new Date(now);
  end.setMinutes(0, 0, 0);
  end.setHours(Math.floor(end.getHours() / stepHours) * stepHours + stepHours);
  const step = stepHours * HOUR_MS;
  const buckets = Array.from({ length: count }, (_, index) => {
    const start = end.getTime() - (count - index) * step;
    return { start, end: start + step, since: new Date(start).toISOString() };
  });
  return { since: buckets[0]!.since, buckets, stepHours };
}
