// Date and date-time with an optional zone; a missing zone means UTC (never the server's local time).
const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Epoch ms of an ISO 8601 date-time (zone optional, meaning UTC), NaN when it is not one or names
 * a time that does not exist (Feb 30, 24:00, which Date.parse would roll over).
 */
export function parseDateTime(value: string): number {
  const match = ISO_DATE_TIME.exec(value);
  if (!match || !realDate(match[1]!) || digits(match[2]!, 0, 2) > 23 || digits(match[2]!, 3, 2) > 59) return Number.NaN;
  return Date.parse(`${match[1]}T${match[2]}${match[3] ?? "Z"}`);
}

/** Epoch ms of an ISO 8601 date-time, or of a date alone (its UTC midnight); NaN otherwise. */
export function parseDateOrDateTime(value: string): number {
  if (!ISO_DATE.test(value)) return parseDateTime(value);
  return realDate(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
}

/** `YYYY-MM-DD` at the start of `date` names a day that exists. */
export function realDate(date: string): boolean {
  const year = digits(date, 0, 4);
  const month = digits(date, 5, 2);
  const day = digits(date, 8, 2);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= DAYS_IN_MONTH[month - 1]! + (leap ? 1 : 0);
}

/** The decimal number in `value[start, start + length)`, or -1 when a character is not a digit. */
export function digits(value: string, start: number, length: number): number {
  let result = 0;
  for (let i = start; i < start + length; i += 1) {
    const code = value.charCodeAt(i) - 48;
    if (code < 0 || code > 9) return -1;
    result = result * 10 + code;
  }
  return result;
}
