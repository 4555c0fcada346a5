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
