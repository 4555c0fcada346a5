import { z } from "zod";
import { BILLING_STATUSES, type AppUserRow, type BillingStatus, type UserCursor, type UserFilter } from "../../../projections/app-users/queries.ts";
import { dataModeParam, page, pageQuery, parseBounds, parseCursor } from "../listing.ts";

/** `billing_status`: one status or a comma list, repeats dropped. */
const billingStatus = z
  .string()
  .max(100)
  .transform((value, context) => {
    const statuses = value.split(",").map((status) => status.trim()).filter((status) => status !== "");
    if (statuses.length === 0 || statuses.some((status) => !(BILLING_STATUSES as readonly string[]).includes(status))) {
      context.addIssue({ code: z.ZodIssueCode.custom, message: `a comma list of ${BILLING_STATUSES.join(", ")}` });
      return z.NEVER;
    }
    return [...new Set(statuses)] as BillingStatus[];
  })
  .describe(`One status or a comma list of ${BILLING_STATUSES.join(", ")}`);

/** The filters both user lists share (SPEC Apps: users). */
export const userListQuery = z
  .object({
    search: z.string().max(255).optional().describe("Case-insensitive substring of the user id"),
    is_anonymous: z.enum(["true", "false"]).optional(),
    billing_status: billingStatus.optional(),
    data_mode: dataModeParam,
  })
  .merge(pageQuery.pick({ cursor: true, limit: true }));

/** The cross-app list also bounds `last_seen_at` with `since`/`until`. */
export const userListQueryWithBounds = userListQuery.merge(pageQuery.pick({ since: true, until: true }));

const SMALLEST_ID = "00000000-0000-0000-0000-000000000000";

/** `<last_seen_at>|<id>` as this list hands it out; a bare timestamp is accepted as well. */
function cursorOf(value: string | undefined): UserCursor | undefined {
  if (value === undefined) return undefined;
  const { timestamp, id } = parseCursor(value);
  // A bare timestamp means "seen before that instant": paired with the smallest id, the row
  // comparison excludes every row at the instant itself.
  return { lastSeenAt: timestamp, id: id ?? SMALLEST_ID };
}

/**
 * The filter, position and page size of a parsed user list query. Cursors and time bounds are
 * read here, not in the schema: they are refused as a 400 naming the field, as before.
 * @throws DomainError invalid for a cursor this list did not hand out or an unreadable time window
 */
export function userListOf(query: z.infer<typeof userListQuery> & { since?: string; until?: string }) {
  const filter: UserFilter = {
    search: query.search,
    isAnonymous: query.is_anonymous === undefined ? undefined : query.is_anonymous === "true",
    billing: query.billing_status,
    dataMode: query.data_mode,
    ...parseBounds(query),
  };
  return { filter, cursor: cursorOf(query.cursor), limit: query.limit };
}

/** The page envelope, each user shown through `show`. */
export function usersPage<T>(rows: readonly AppUserRow[], limit: number, show: (row: AppUserRow) => T) {
  const { items, cursor, has_more } = page(rows, limit, (row) => `${row.last_seen_at}|${row.id}`);
  return { users: items.map(show), cursor, has_more };
}

/** The per-app list leaves out last_locale and last_preferred_language (SPEC: cross-app listing only). */
export const withoutLocales = ({ last_locale, last_preferred_language, ...user }: AppUserRow) => user;
