import { z } from "zod";
import { invalid } from "../../../domain/shared/errors.ts";
import { BILLING_STATUSES, type AppUserRow, type BillingStatus, type UserCursor, type UserFilter } from "../../../projections/app-users/queries.ts";
import { page, pageQuery, parseBounds, parseCursor } from "../listing.ts";
import { parse } from "../validation.ts";

export const dataModeSchema = z.enum(["production", "development", "all"]).default("production");

const listQuery = z
  .object({
    search: z.string().max(255).optional(),
    is_anonymous: z.enum(["true", "false"]).optional(),
    billing_status: z.string().max(100).optional(),
    data_mode: dataModeSchema,
  })
  .merge(pageQuery.pick({ cursor: true, limit: true }));
const timeBounds = pageQuery.pick({ since: true, until: true });

function billingOf(value: string | undefined): BillingStatus[] | undefined {
  if (value === undefined) return undefined;
  const statuses = value.split(",").map((status) => status.trim()).filter((status) => status !== "");
  const unknown = statuses.find((status) => !(BILLING_STATUSES as readonly string[]).includes(status));
  if (unknown !== undefined || statuses.length === 0) throw invalid(`billing_status: a comma list of ${BILLING_STATUSES.join(", ")}`);
  return [...new Set(statuses)] as BillingStatus[];
}

const SMALLEST_ID = "00000000-0000-0000-0000-000000000000";

/** `<last_seen_at>|<id>` as this list hands it out; a bare timestamp is accepted as well. */
function cursorOf(value: string | undefined): UserCursor | undefined {
  if (value === undefined) return undefined;
  const { timestamp, id } = parseCursor(value);
  // A bare timestamp means "seen before that instant": paired with the smallest id, the row
  // comparison excludes every row at the instant itself.
  return { lastSeenAt: timestamp, id: id ?? SMALLEST_ID };
}

/** The filters both user lists share (SPEC Apps: users), plus `since`/`until` where the route has them. */
export function readUserListQuery(query: unknown, withTimeBounds: boolean) {
  const q = parse(listQuery.passthrough(), query, "query");
  const bounds = withTimeBounds ? parse(timeBounds.passthrough(), query, "query") : {};
  const filter: UserFilter = {
    search: q.search === undefined || q.search === "" ? undefined : q.search,
    isAnonymous: q.is_anonymous === undefined ? undefined : q.is_anonymous === "true",
    billing: billingOf(q.billing_status),
    dataMode: q.data_mode,
    ...parseBounds(bounds),
  };
  return { filter, cursor: cursorOf(q.cursor), limit: q.limit };
}

/** The page envelope; `locales` keeps last_locale and last_preferred_language (cross-app list only). */
export function usersPage(rows: AppUserRow[], limit: number, locales: boolean) {
  const { items, cursor, has_more } = page(rows, limit, (row) => `${row.last_seen_at}|${row.id}`);
  const users = items.map(({ last_locale, last_preferred_language, ...user }) =>
    locales ? { ...user, last_locale, last_preferred_language } : user,
  );
  return { users, cursor, has_more };
}
