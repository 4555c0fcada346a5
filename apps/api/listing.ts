import { z } from "zod";
import { DATA_MODES } from "../../domain/analytics/window.ts";
import { invalid } from "../../domain/shared/errors.ts";
import { parseDateOrDateTime, parseDateTime } from "../../domain/shared/instant.ts";
import { uuid } from "./validation.ts";

const RELATIVE = /^(\d{1,6})(s|m|h|d|w)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/**
 * `since`/`until`: relative (`30s`, `30m`, `1h`, `7d`, `1w`, meaning that long ago) or ISO 8601,
 * a date or a date-time; without a zone it is UTC, whatever the server's time zone.
 */
export function parseInstant(value: string, field: string, now = Date.now()): Date {
  const relative = RELATIVE.exec(value);
  if (relative) return new Date(now - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS]);
  const parsed = parseDateOrDateTime(value);
  if (!Number.isNaN(parsed)) return new Date(parsed);
  throw invalid(`${field}: must be a relative time like 30m, 1h, 7d or an ISO 8601 timestamp`);
}

/**
 * The `since`/`until` of a list, each optional; both read against the same `now`.
 * @throws DomainError invalid for an unreadable time or a window that ends before it starts
 */
export function parseBounds(query: { since?: string; until?: string }, now = Date.now()): { since?: Date; until?: Date } {
  const since = query.since === undefined ? undefined : parseInstant(query.since, "since", now);
  const until = query.until === undefined ? undefined : parseInstant(query.until, "until", now);
  if (since !== undefined && until !== undefined && since.getTime() > until.getTime()) throw invalid("since: must not be after until");
  return { since, until };
}

/**
 * A list's `limit`: an integer of at least 1, `fallback` when absent. A value above `max` is served
 * as `max` rather than refused, because the official SDKs and CLIs send `limit=1000` on every list
 * route; a client learns the page size from the items it gets and pages on with the cursor. Below
 * 1, not an integer or not a number is still a 400 naming the field (`limit: Expected number,
 * received nan`). The documented schema shows no maximum for the same reason: 1000 is valid input.
 */
export function limitParam(max: number, fallback: number) {
  return z.coerce
    .number()
    .int()
    .min(1)
    .transform((limit) => Math.min(limit, max))
    .default(fallback)
    .describe(`Page size, default ${fallback}; a value above ${max} is served as ${max}`);
}

/**
 * A list's `cursor`, read by the list itself (parseCursor). The longest any list hands out is
 * `<timestamp>|<uuid>`, 61 characters; the bound leaves room for a longer form without a schema change.
 */
export const cursorParam = z.string().min(1).max(200).optional().describe("The `cursor` of the previous page");

/** `since`/`until`, read by parseBounds: relative or ISO 8601, either far shorter than 64 characters. */
export const sinceParam = z.string().min(1).max(64).optional().describe("Start: relative (30m, 1h, 7d, 1w: that long ago) or ISO 8601");
export const untilParam = z.string().min(1).max(64).optional().describe("End, read like since; default now");

/** `data_mode`: which events (or users) count by their is_dev flag. */
export const dataModeParam = z.enum(DATA_MODES).default("production").describe("production: is_dev false; development: is_dev true; all");

/** The common list query: `cursor`, `limit` (1-200, default 50, larger served as 200), `since`, `until`. */
export const pageQuery = z.object({
  cursor: cursorParam,
  limit: limitParam(200, 50),
  since: sinceParam,
  until: untilParam,
});

export type KeysetCursor = { timestamp: string; id: string };

/**
 * `<timestamp>` or `<timestamp>|<id>`, the two forms this API's cursors take (the id lower-cased).
 * @throws DomainError invalid for anything else
 */
export function parseCursor(value: string): { timestamp: string; id?: string } {
  const [timestamp, id, extra] = value.split("|");
  const ms = timestamp ? parseDateTime(timestamp) : Number.NaN;
  const parsedId = id === undefined ? undefined : uuid.safeParse(id);
  if (Number.isNaN(ms) || extra !== undefined || parsedId?.success === false) throw invalid("cursor: not a cursor returned by this list");
  return { timestamp: new Date(ms).toISOString(), id: parsedId?.data };
}

/** `<timestamp>|<id>` cursors (audit logs, job runs, notifications). */
export function parseKeysetCursor(cursor: string | undefined): KeysetCursor | undefined {
  if (cursor === undefined) return undefined;
  const { timestamp, id } = parseCursor(cursor);
  if (id === undefined) throw invalid("cursor: not a cursor returned by this list");
  return { timestamp, id };
}

/** Cuts the extra row fetched to learn whether more exist and builds the page envelope. */
export function page<T>(rows: readonly T[], limit: number, cursorOf: (row: T) => string) {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return { items, cursor: hasMore ? cursorOf(items[items.length - 1]!) : null, has_more: hasMore };
}
