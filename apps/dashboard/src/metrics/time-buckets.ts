import { RANGES, type RangeKey } from "../overview/window.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export type TimeUnit = "time:hour" | "time:day";

/**
 * The starts (epoch ms) of every UTC hour or day that the range touches, oldest first. The API
 * truncates to UTC hours and days and leaves out those without runs; the chart shows those as
 * empty bars, so a quiet hour reads as quiet rather than missing.
 */
export function bucketStarts(range: RangeKey, unit: TimeUnit, now: number): number[] {
  const step = unit === "time:hour" ? HOUR_MS : DAY_MS;
  const { buckets, stepHours } = RANGES[range];
  const since = now - buckets * stepHours * HOUR_MS;
  const first = Math.floor(since / step) * step;
  const starts: number[] = [];
  for (let start = first; start <= now; start += step) starts.push(start);
  return starts;
}

/** Each bucket start with the group the API gave for it, or undefined where there were no runs. */
export function alignGroups<G extends { value: string | null }>(starts: readonly number[], groups: readonly G[]): { start: number; group: G | undefined }[] {
  const byStart = new Map<number, G>();
  for (const group of groups) if (group.value !== null) byStart.set(Date.parse(group.value), group);
  return starts.map((start) => ({ start, group: byStart.get(start) }));
}

const hourFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const dayFormat = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });

/** An hour reads in local time; a day is a UTC day, so it is named by its UTC date. */
export const bucketName = (start: number, unit: TimeUnit) => (unit === "time:hour" ? hourFormat.format(start) : dayFormat.format(start));
