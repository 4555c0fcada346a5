import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { DeviceState } from "../../domain/notifications/device-decider.ts";
import type { InboxState } from "../../domain/notifications/inbox-decider.ts";
import { subjectVersion } from "../_runtime/subject-versions.ts";

/** Stream sequence of the last fact applied on an inbox or device subject (0: none). */
export async function notificationsVersion(db: CommonQueryMethods, subject: string): Promise<number> {
  return subjectVersion(db, "notification_versions", subject);
}

const summaryRow = z.object({ id: z.string(), type: z.string(), read_at: z.string().nullable(), deleted_at: z.string().nullable() });

/**
 * The inbox decider's state for one command: the notifications it names in the user's inbox
 * (another user's id is simply absent), or with `unread`, every unread visible one.
 */
export async function inboxState(db: CommonQueryMethods, userId: string, names: { ids?: readonly string[]; unread?: boolean }): Promise<InboxState> {
  const rows = names.unread
    ? await db.any(sql.type(summaryRow)`
        select id, type, read_at, deleted_at from notifications where user_id = ${userId} and deleted_at is null and read_at is null`)
    : await db.any(sql.type(summaryRow)`
        select id, type, read_at, deleted_at from notifications where user_id = ${userId} and id = any(${sql.array(names.ids ?? [], "uuid")})`);
  return { notifications: Object.fromEntries(rows.map((row) => [row.id, { notificationType: row.type, readAt: row.read_at, deletedAt: row.deleted_at }])) };
}

/** The device decider's state for one token's subject. */
export async function deviceState(db: CommonQueryMethods, tokenKey: string): Promise<DeviceState> {
  const row = await db.maybeOne(sql.type(z.object({ id: z.string(), user_id: z.string(), created_at: z.string() }))`
    select id, user_id, created_at from devices where token_key = ${tokenKey}`);
  return { device: row ? { deviceId: row.id, userId: row.user_id, createdAt: row.created_at } : null };
}
