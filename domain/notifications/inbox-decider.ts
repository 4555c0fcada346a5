import type { DomainEvent } from "../events.ts";
import type { Decider } from "../shared/decider.ts";
import { conflict, notFound } from "../shared/errors.ts";
import type { NotificationCreated } from "./events.ts";
import { PURGE_AFTER_MS } from "./rules.ts";

/** One notification as the inbox's decisions need it. */
export type NotificationSummary = { notificationType: string; readAt: string | null; deletedAt: string | null };

/**
 * The state of a user's inbox subject as one decision needs it: the notifications the command
 * names (for mark-all-read, every unread one). Loading the whole inbox for each click would grow
 * with it; folding facts keeps the named ones right, which is how the tests build it.
 */
export type InboxState = { notifications: Record<string, NotificationSummary> };

export type InboxCommand =
  | { type: "CreateNotification"; notification: Omit<NotificationCreated, "type" | "v"> }
  | { type: "SetNotificationRead"; notificationId: string; userId: string; read: boolean; at: string }
  | { type: "MarkAllNotificationsRead"; userId: string; notificationType?: string; at: string }
  | { type: "DeleteNotification"; notificationId: string; userId: string; at: string }
  | { type: "PurgeNotification"; notificationId: string; userId: string; now: string };

/** A visible notification of the inbox, or 404 (missing, soft-deleted or, having been looked up in the caller's inbox, another user's). */
function visible(state: InboxState, notificationId: string): NotificationSummary {
  const notification = state.notifications[notificationId];
  if (!notification || notification.deletedAt !== null) throw notFound("notification");
  return notification;
}

function decide(state: InboxState, command: InboxCommand): DomainEvent[] {
  switch (command.type) {
    case "CreateNotification":
      // A redelivered source fact derives the same id: the notification exists once.
      if (state.notifications[command.notification.notification_id]) return [];
      return [{ type: "NotificationCreated", v: 1, ...command.notification }];
    case "SetNotificationRead": {
      const notification = visible(state, command.notificationId);
      if (!command.read && notification.readAt === null) return [];
      return [{ type: "NotificationReadChanged", v: 1, notification_id: command.notificationId, user_id: command.userId, read_at: command.read ? command.at : null }];
    }
    case "MarkAllNotificationsRead": {
      const ids = Object.entries(state.notifications)
        .filter(([, n]) => n.readAt === null && n.deletedAt === null && (command.notificationType === undefined || n.notificationType === command.notificationType))
        .map(([id]) => id)
        .sort();
      if (ids.length === 0) return [];
      return [{ type: "NotificationsMarkedRead", v: 1, user_id: command.userId, notification_ids: ids, read_at: command.at }];
    }
    case "DeleteNotification":
      visible(state, command.notificationId);
      return [{ type: "NotificationDeleted", v: 1, notification_id: command.notificationId, user_id: command.userId, deleted_at: command.at }];
    case "PurgeNotification": {
      const notification = state.notifications[command.notificationId];
      if (!notification) throw notFound("notification");
      // Checked again on the subject's state: the cleanup's candidate list may be stale.
      if (notification.deletedAt === null || Date.parse(notification.deletedAt) + PURGE_AFTER_MS > Date.parse(command.now)) {
        throw conflict("the notification is not due for purging");
      }
      return [{ type: "NotificationPurged", v: 1, notification_id: command.notificationId, user_id: command.userId }];
    }
  }
}

const withNotification = (state: InboxState, id: string, change: (n: NotificationSummary) => NotificationSummary): InboxState => {
  const notification = state.notifications[id];
  return notification ? { notifications: { ...state.notifications, [id]: change(notification) } } : state;
};

function evolve(state: InboxState, fact: DomainEvent): InboxState {
  switch (fact.type) {
    case "NotificationCreated":
      return { notifications: { ...state.notifications, [fact.notification_id]: { notificationType: fact.notification_type, readAt: null, deletedAt: null } } };
    case "NotificationReadChanged":
      return withNotification(state, fact.notification_id, (n) => ({ ...n, readAt: fact.read_at }));
    case "NotificationsMarkedRead":
      return fact.notification_ids.reduce((next, id) => withNotification(next, id, (n) => ({ ...n, readAt: fact.read_at })), state);
    case "NotificationDeleted":
      return withNotification(state, fact.notification_id, (n) => ({ ...n, deletedAt: fact.deleted_at }));
    case "NotificationPurged": {
      const { [fact.notification_id]: _purged, ...notifications } = state.notifications;
      return { notifications };
    }
    default:
      return state;
  }
}

/** A user's inbox: notifications created once per source and recipient, read, unread, deleted, purged 90 days later. */
export const inboxDecider: Decider<InboxState, InboxCommand, DomainEvent> = { initialState: { notifications: {} }, decide, evolve };
