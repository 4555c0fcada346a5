/** The analytics time window: both ends inclusive, as the events list treats `since`/`until`. */
export type TimeWindow = { since: Date; until: Date };

export const DATA_MODES = ["production", "development", "all"] as const;
export type DataMode = (typeof DATA_MODES)[number];

const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** The earliest instant a project with `retentionDays` of retention still serves, in ms. */
export const retentionHorizon = (retentionDays: number, nowMs: number): number => nowMs - retentionDays * DAY_MS;

/**
 * The window a query may read: `since` is raised to the project's retention horizon (older
 * events are not served even when still stored), and a window that starts after it ends is empty.
 */
export function retainedWindow(window: TimeWindow, retentionDays: number, nowMs: number): TimeWindow | null {
  const horizon = retentionHorizon(retentionDays, nowMs);
  const since = new Date(Math.max(window.since.getTime(), horizon));
  return since.getTime() > window.until.getTime() ? null : { since, until: window.until };
}

/**
 * Splits a window for hourly counts: whole hours `[rollupFrom, rollupTo)` are read from the
 * hourly rollups, the rest, `[since, rollupFrom)` and `[rollupTo, until]`, from the events. A
 * window inside one hour has no whole hour: rollupFrom = rollupTo = until leaves it all to events.
 */
export function splitHours({ since, until }: TimeWindow): { rollupFrom: Date; rollupTo: Date } {
  const from = Math.ceil(since.getTime() / HOUR_MS) * HOUR_MS;
  const to = Math.floor(until.getTime() / HOUR_MS) * HOUR_MS;
  if (from >= to) return { rollupFrom: until, rollupTo: until };
  return { rollupFrom: new Date(from), rollupTo: new Date(to) };
}

const MINUTE_MS = 60_000;

/** A span of time, `from` inclusive, `to` exclusive. */
export type TimeSpan = { from: Date; to: Date };

/** Where each part of a count's window is read from (splitForRollups). */
export type RollupSplit = {
  /** Whole hours, read from the hourly rollups; null when the window holds none. */
  hours: TimeSpan | null;
  /** Whole minutes outside those hours (at most one span before and one after), read from the minute rollups. */
  minutes: TimeSpan[];
  /** The rows are read for `[since, rowsBefore)` and `[rowsFrom, until]`: the partial minutes at the edges. */
  rowsBefore: Date;
  rowsFrom: Date;
};

const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit;
const ceilTo = (ms: number, unit: number) => Math.ceil(ms / unit) * unit;

/**
 * Splits a count's window (both ends inclusive) so that every instant in it is read from exactly
 * one place: whole hours from the hourly rollups, the whole minutes of the partial hours from the
 * minute rollups, and the partial minutes at either edge from the rows, which keeps the count
 * exact wherever the window starts and ends. An event at `until` is in the last, inclusive rows
 * span even when `until` falls on a minute boundary. A window without a whole minute is read from
 * the rows alone.
 */
export function splitForRollups({ since, until }: TimeWindow): RollupSplit {
  const minuteFrom = ceilTo(since.getTime(), MINUTE_MS);
  const minuteTo = floorTo(until.getTime(), MINUTE_MS);
  if (minuteFrom >= minuteTo) return { hours: null, minutes: [], rowsBefore: since, rowsFrom: since };
  const rows = { rowsBefore: new Date(minuteFrom), rowsFrom: new Date(minuteTo) };
  const hourFrom = ceilTo(minuteFrom, HOUR_MS);
  const hourTo = floorTo(minuteTo, HOUR_MS);
  if (hourFrom >= hourTo) return { hours: null, minutes: [{ from: new Date(minuteFrom), to: new Date(minuteTo) }], ...rows };
  const minutes = [
    { from: minuteFrom, to: hourFrom },
    { from: hourTo, to: minuteTo },
  ]
    .filter((span) => span.from < span.to)
    .map((span) => ({ from: new Date(span.from), to: new Date(span.to) }));
  return { hours: { from: new Date(hourFrom), to: new Date(hourTo) }, minutes, ...rows };
}
