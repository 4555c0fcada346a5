import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";

const notificationRow = z.object({
  id: z.string(),
  type: z.string(),
  title: z.string(),
  body: z.string(),
  link: z.string().nullable(),
  team_id: z.string().nullable(),
  read_at: z.string().nullable(),
  created_at: z.string(),
});
export type NotificationRow = z.infer<typeof notificationRow>;

/** The API shape (SPEC, Notification): `data` stays internal. */
const columns = sql.fragment`id, type, title, body, link, team_id, read_at, created_at`;

/** A user's visible notification; null when missing, soft-deleted or another user's. */
export const visibleNotification = (db: CommonQueryMethods, userId: string, id: string) =>
  db.maybeOne(sql.type(notificationRow)`select ${columns} from notifications where id = ${id} and user_id = ${userId} and deleted_at is null`);

export type NotificationFilter = {
  userId: string;
  readState: "unread" | "read" | "all";
  /** Types to keep; empty keeps all (unknown types were already dropped by the caller). */
  types: readonly string[];
  after?: { timestamp: string; id: string };
  limit: number;
};

/** A user's visible notifications, newest first, keyset over (created_at, id); limit + 1 rows so the caller knows if more exist. */
export function listNotifications(db: CommonQueryMethods, filter: NotificationFilter) {
  const conditions = [sql.fragment`user_id = ${filter.userId}`, sql.fragment`deleted_at is null`];
  if (filter.readState === "unread") conditions.push(sql.fragment`read_at is null`);
  if (filter.readState === "read") conditions.push(sql.fragment`read_at is not null`);
  if (filter.types.length > 0) conditions.push(sql.fragment`type = any(${sql.array(filter.types, "text")})`);
  if (filter.after) conditions.push(sql.fragment`(created_at, id) < (${filter.after.timestamp}::timestamptz, ${filter.after.id}::uuid)`);
  return db.any(sql.type(notificationRow)`
    select ${columns} from notifications where ${sql.join(conditions, sql.fragment` and `)}
     order by created_at desc, id desc limit ${filter.limit + 1}`);
}

export const unreadCount = async (db: CommonQueryMethods, userId: string): Promise<number> =>
  db.oneFirst(sql.type(z.object({ count: z.number() }))`
    select count(*)::int as count from notifications where user_id = ${userId} and deleted_at is null and read_at is null`);

/** A notification the dispatcher delivers: its content and channels come from its fact; this is its recipient's view of it. */
export const notificationForDelivery = (db: CommonQueryMethods, id: string) =>
  db.maybeOne(sql.type(notificationRow.extend({ user_id: z.string(), data: z.record(z.unknown()) }))`
    select ${columns}, user_id, data from notifications where id = ${id}`);

/** Outcomes already recorded for a notification: `<channel>:<device id or ''>` → status. */
export async function deliveryOutcomes(db: CommonQueryMethods, notificationId: string): Promise<Map<string, { status: string; attempts: number }>> {
  const rows = await db.any(sql.type(z.object({ channel: z.string(), device_key: z.string(), status: z.string(), attempts: z.number() }))`
    select channel, device_key, status, attempts from notification_deliveries where notification_id = ${notificationId}`);
  return new Map(rows.map((row) => [`${row.channel}:${row.device_key}`, { status: row.status, attempts: row.attempts }]));
}

/** Soft-deleted notifications deleted at or before `before`, oldest first: the cleanup's candidates. */
export const notificationsDeletedBefore = (db: CommonQueryMethods, before: Date, limit: number) =>
  db.any(sql.type(z.object({ id: z.string(), user_id: z.string() }))`
    select id, user_id from notifications where deleted_at is not null and deleted_at <= ${before.toISOString()}
     order by deleted_at, id limit ${limit}`);

const deviceRow = z.object({
  id: z.string(),
  channel: z.literal("mobile_push"),
  platform: z.enum(["ios", "android"]),
  environment: z.enum(["sandbox", "production"]),
  app_version: z.string().nullable(),
  device_model: z.string().nullable(),
  os_version: z.string().nullable(),
  last_seen_at: z.string(),
  created_at: z.string(),
});
export type DeviceRow = z.infer<typeof deviceRow>;

/** SPEC, Device: the token is stored but never returned. Every device is a push device. */
const deviceColumns = sql.fragment`id, 'mobile_push' as channel, platform, environment, app_version, device_model, os_version, last_seen_at, created_at`;

export const devicesOfUser = (db: CommonQueryMethods, userId: string) =>
  db.any(sql.type(deviceRow)`select ${deviceColumns} from devices where user_id = ${userId} order by last_seen_at desc, id desc`);

export const deviceById = (db: CommonQueryMethods, id: string) =>
  db.maybeOne(sql.type(deviceRow.extend({ user_id: z.string(), token_key: z.string() }))`select ${deviceColumns}, user_id, token_key from devices where id = ${id}`);

export const deviceByToken = (db: CommonQueryMethods, token: string) =>
  db.maybeOne(sql.type(deviceRow.extend({ user_id: z.string() }))`select ${deviceColumns}, user_id from devices where token = ${token}`);

/** The push targets of a user: with their tokens, for the dispatcher only. */
export const pushTargets = (db: CommonQueryMethods, userId: string) =>
  db.any(sql.type(z.object({ id: z.string(), platform: z.enum(["ios", "android"]), environment: z.enum(["sandbox", "production"]), token: z.string() }))`
    select id, platform, environment, token from devices where user_id = ${userId} order by created_at, id`);
