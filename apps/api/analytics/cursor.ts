import { invalid } from "../../../domain/shared/errors.ts";
import { parseDateTime } from "../../../domain/shared/instant.ts";
import type { ListCursor } from "../../../projections/metric-events/list-queries.ts";
import { page } from "../listing.ts";
import { uuid } from "../validation.ts";

/** `<timestamp>`, or `<timestamp>|<id>` when the page ended inside a run of equal timestamps. */
export function parseTimeCursor(value: string | undefined): ListCursor | undefined {
  if (value === undefined) return undefined;
  const [timestamp, id, extra] = value.split("|");
  const ms = timestamp ? parseDateTime(timestamp) : Number.NaN;
  if (Number.isNaN(ms) || extra !== undefined || (id !== undefined && !uuid.safeParse(id).success)) {
    throw invalid("cursor: not a cursor returned by this list");
  }
  return { timestamp: new Date(ms).toISOString(), id: id?.toLowerCase() };
}

/**
 * The page envelope for rows ordered newest first. The cursor is the last row's timestamp; when
 * the next row shares it, the cursor also names the last id so no row is skipped.
 */
export const timePage = <T extends { timestamp: string; id: string }>(rows: readonly T[], limit: number) =>
  page(rows, limit, (last) => (rows[limit]!.timestamp === last.timestamp ? `${last.timestamp}|${last.id}` : last.timestamp));
