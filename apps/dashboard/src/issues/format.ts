import { formatDateTime } from "../ui/format.tsx";

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
export const number = new Intl.NumberFormat();

/** A timestamp as a reader's local date and time; the API's null ("never") as a dash. */
export const when = (iso: string | null): string => (iso === null ? "–" : formatDateTime(iso));

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400],
  ["month", 30 * 86_400],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

/** "3 hours ago": what a board card needs to tell fresh from stale at a glance. */
export function ago(iso: string | null, now = Date.now()): string {
  if (iso === null) return "never";
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  for (const [unit, size] of STEPS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return "just now";
}

const UNITS = ["B", "KB", "MB", "GB"];

/** Bytes in the largest unit that keeps the figure at or above 1. */
export function bytes(size: number): string {
  let value = size;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${UNITS[unit]}`;
}
