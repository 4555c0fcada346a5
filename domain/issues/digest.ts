import type { IssueAlertFrequency } from "../projects/settings.ts";

const HOUR_MS = 3_600_000;
/** Daily and weekly digests go out at this hour (UTC): the start of a European working day, early for the Americas. */
export const DIGEST_HOUR_UTC = 9;
/** How many issues a digest lists by name; it counts all of them. */
export const DIGEST_LISTED_ISSUES = 10;

/** A period a digest reports on: occurrences whose event time is at or after `start` and before `end`. */
export type DigestPeriod = { start: string; end: string };

/**
 * The latest digest period of `frequency` that has ended by `now`, or null for `none`:
 * hourly digests cover whole UTC hours, 6-hourly ones end at 00, 06, 12 and 18 UTC, daily ones at
 * 09:00 UTC and weekly ones on Mondays at 09:00 UTC, each covering the interval before its end.
 * A run late by hours still finds the period it missed, and a run twice in one period the same one.
 */
export function digestPeriod(frequency: IssueAlertFrequency, now: Date): DigestPeriod | null {
  const hour = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
  let end: Date;
  let lengthHours: number;
  switch (frequency) {
    case "none":
      return null;
    case "hourly":
      end = hour;
      lengthHours = 1;
      break;
    case "6_hourly":
      end = new Date(hour.getTime() - (hour.getUTCHours() % 6) * HOUR_MS);
      lengthHours = 6;
      break;
    case "daily":
      end = new Date(hour.getTime() - ((hour.getUTCHours() - DIGEST_HOUR_UTC + 24) % 24) * HOUR_MS);
      lengthHours = 24;
      break;
    case "weekly": {
      const daily = hour.getTime() - ((hour.getUTCHours() - DIGEST_HOUR_UTC + 24) % 24) * HOUR_MS;
      const daysSinceMonday = (new Date(daily).getUTCDay() + 6) % 7;
      end = new Date(daily - daysSinceMonday * 24 * HOUR_MS);
      lengthHours = 7 * 24;
      break;
    }
    default: {
      const unknown: never = frequency;
      throw new Error(`unknown issue alert frequency ${String(unknown)}`);
    }
  }
  return { start: new Date(end.getTime() - lengthHours * HOUR_MS).toISOString(), end: end.toISOString() };
}
