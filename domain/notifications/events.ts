import { z } from "zod";
import { DELIVERY_CHANNELS, DEVICE_ENVIRONMENTS, DEVICE_PLATFORMS } from "./rules.ts";

/**
 * Inbox facts, on the DOMAIN subject of the recipient's inbox (`<ns>.d.inbox.<user_id>`, apart from
 * the user aggregate's own `<ns>.d.user.<id>`): one user's notifications are decided on one
 * version. The dispatcher creates them; the user reads, unreads and deletes them; the cleanup purges.
 */
export const notificationCreated = z.object({
  type: z.literal("NotificationCreated"),
  v: z.literal(1),
  notification_id: z.string(),
  user_id: z.string(),
  /** `job.completed`, `issue.new`, `issue.digest`, `feedback.new` (docs/notifications.md). */
  notification_type: z.string(),
  title: z.string(),
  body: z.string(),
  link: z.string().nullable(),
  team_id: z.string().nullable(),
  /** Internal payload (ids the notification is about); never in list answers. */
  data: z.record(z.unknown()),
  /** Channels besides the inbox this notification goes out on. */
  channels: z.array(z.enum(DELIVERY_CHANNELS)),
  /** The fact that caused it (its envelope id), so the same source never notifies twice. */
  source_id: z.string(),
  created_at: z.string(),
});

/** `read_at` null marks it unread again. */
export const notificationReadChanged = z.object({
  type: z.literal("NotificationReadChanged"),
  v: z.literal(1),
  notification_id: z.string(),
  user_id: z.string(),
  read_at: z.string().nullable(),
});

/** mark-all-read: the ids it changed travel along, so a replay marks exactly those. */
export const notificationsMarkedRead = z.object({
  type: z.literal("NotificationsMarkedRead"),
  v: z.literal(1),
  user_id: z.string(),
  notification_ids: z.array(z.string()),
  read_at: z.string(),
});

export const notificationDeleted = z.object({
  type: z.literal("NotificationDeleted"),
  v: z.literal(1),
  notification_id: z.string(),
  user_id: z.string(),
  deleted_at: z.string(),
});

/** The hard delete, 90 days after the soft delete (notification_cleanup). */
export const notificationPurged = z.object({
  type: z.literal("NotificationPurged"),
  v: z.literal(1),
  notification_id: z.string(),
  user_id: z.string(),
});

/**
 * Delivery outcomes, on `<ns>.d.delivery.<notification_id>`: appended by the dispatcher without a
 * decision (an outcome is what happened, not a choice), with message ids derived from the attempt.
 * `device_id` names the device of a push.
 */
export const notificationDelivered = z.object({
  type: z.literal("NotificationDelivered"),
  v: z.literal(1),
  notification_id: z.string(),
  user_id: z.string(),
  channel: z.enum(DELIVERY_CHANNELS),
  device_id: z.string().nullable(),
  delivered_at: z.string(),
});

/** `retrying` false: given up on (a device the gateway refused, no address); true: retried with backoff. */
export const notificationDeliveryFailed = z.object({
  type: z.literal("NotificationDeliveryFailed"),
  v: z.literal(1),
  notification_id: z.string(),
  user_id: z.string(),
  channel: z.enum(DELIVERY_CHANNELS),
  device_id: z.string().nullable(),
  reason: z.string(),
  attempt: z.number().int().positive(),
  retrying: z.boolean(),
  failed_at: z.string(),
});

/**
 * Device facts, on `<ns>.d.device.<token hash>`: one subject per push token, so two users
 * registering one token are ordered on one version and the token has one owner at a time.
 * `previous_user_id` is the owner it was taken from (a reassignment), else null.
 */
export const deviceRegistered = z.object({
  type: z.literal("DeviceRegistered"),
  v: z.literal(1),
  device_id: z.string(),
  user_id: z.string(),
  previous_user_id: z.string().nullable(),
  token: z.string(),
  platform: z.enum(DEVICE_PLATFORMS),
  environment: z.enum(DEVICE_ENVIRONMENTS),
  app_version: z.string().nullable(),
  device_model: z.string().nullable(),
  os_version: z.string().nullable(),
  last_seen_at: z.string(),
  created_at: z.string(),
});

/** `reason`: the owner deleted it, or the push gateway reported the token unregistered or bad. */
export const deviceRemoved = z.object({
  type: z.literal("DeviceRemoved"),
  v: z.literal(1),
  device_id: z.string(),
  user_id: z.string(),
  reason: z.enum(["deleted", "unregistered", "bad_token"]),
});

export const notificationEvents = [
  notificationCreated,
  notificationReadChanged,
  notificationsMarkedRead,
  notificationDeleted,
  notificationPurged,
  notificationDelivered,
  notificationDeliveryFailed,
  deviceRegistered,
  deviceRemoved,
] as const;
export type NotificationFact = z.infer<(typeof notificationEvents)[number]>;
export type NotificationCreated = z.infer<typeof notificationCreated>;

const NOTIFICATION_FACT_TYPES: ReadonlySet<string> = new Set(notificationEvents.map((event) => event.shape.type.value));

/** Whether a DOMAIN fact belongs to the notifications read model. */
export const isNotificationFact = <E extends { type: string }>(event: E): event is Extract<E, NotificationFact> => NOTIFICATION_FACT_TYPES.has(event.type);
