import type { ListCursor } from "../../../projections/metric-events/list-queries.ts";
import { page, parseCursor } from "../listing.ts";

/** `<timestamp>`, or `<timestamp>|<id>` when the page ended inside a run of equal timestamps. */
export const parseTimeCursor = (value: string | undefined): ListCursor | undefined => (value === undefined ? undefined : parseCursor(value));

/**
 * The page envelope for rows ordered newest first. The cursor is the last row's timestamp; when
 * the next row shares it, the cursor also names the last id so no row is skipped.
 */
export const timePage = <T extends { timestamp: string; id: string }>(rows: readonly T[], limit: number) =>
  page(rows, limit, (last) => (rows[limit]!.timestamp === last.timestamp ? `${last.timestamp}|${last.id}` : last.timestamp));
