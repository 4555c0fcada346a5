import { describe, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import { inboxDecider } from "./inbox-decider.ts";

const AT = "2026-11-25T12:00:00.000Z";
const LATER = "2026-11-25T13:00:00.000Z";

const draft = (id: string, type = "job.completed") => ({
  notification_id: id,
  user_id: "u",
  notification_type: type,
  title: "Job issue_scan completed",
  body: "body",
  link: null,
  team_id: null,
  data: {},
  channels: [] as ("email" | "push")[],
  source_id: `source-${id}`,
  created_at: AT,
});
const created = (id: string, type?: string): DomainEvent => ({ type: "NotificationCreated", v: 1, ...draft(id, type) });
const read = (id: string, at: string | null = AT): DomainEvent => ({ type: "NotificationReadChanged", v: 1, notification_id: id, user_id: "u", read_at: at });
const deleted = (id: string, at = AT): DomainEvent => ({ type: "NotificationDeleted", v: 1, notification_id: id, user_id: "u", deleted_at: at });

describe("inbox decider", () => {
  it("creates a notification once, however often its source fact comes", () => {
    given(inboxDecider)().when({ type: "CreateNotification", notification: draft("n1") }).then(created("n1"));
    given(inboxDecider)(created("n1")).when({ type: "CreateNotification", notification: draft("n1") }).then();
  });

  it("marks read and unread; unread again on an unread one changes nothing", () => {
    given(inboxDecider)(created("n1")).when({ type: "SetNotificationRead", notificationId: "n1", userId: "u", read: true, at: LATER }).then(read("n1", LATER));
    given(inboxDecider)(created("n1"), read("n1")).when({ type: "SetNotificationRead", notificationId: "n1", userId: "u", read: false, at: LATER }).then(read("n1", null));
    given(inboxDecider)(created("n1")).when({ type: "SetNotificationRead", notificationId: "n1", userId: "u", read: false, at: LATER }).then();
  });

  it("refuses missing and deleted notifications with not_found", () => {
    given(inboxDecider)().when({ type: "SetNotificationRead", notificationId: "n1", userId: "u", read: true, at: AT }).thenFails("not_found");
    given(inboxDecider)(created("n1"), deleted("n1")).when({ type: "DeleteNotification", notificationId: "n1", userId: "u", at: LATER }).thenFails("not_found");
    given(inboxDecider)(created("n1"), deleted("n1")).when({ type: "SetNotificationRead", notificationId: "n1", userId: "u", read: true, at: LATER }).thenFails("not_found");
  });

  it("marks every unread visible one read, of one type when asked, naming them", () => {
    const history = [created("a", "issue.digest"), created("b", "job.completed"), created("c", "issue.digest"), read("c"), created("d", "issue.digest"), deleted("d")];
    given(inboxDecider)(...history)
      .when({ type: "MarkAllNotificationsRead", userId: "u", at: LATER })
      .then({ type: "NotificationsMarkedRead", v: 1, user_id: "u", notification_ids: ["a", "b"], read_at: LATER });
    given(inboxDecider)(...history)
      .when({ type: "MarkAllNotificationsRead", userId: "u", notificationType: "issue.digest", at: LATER })
      .then({ type: "NotificationsMarkedRead", v: 1, user_id: "u", notification_ids: ["a"], read_at: LATER });
    given(inboxDecider)(created("a"), read("a")).when({ type: "MarkAllNotificationsRead", userId: "u", at: LATER }).then();
  });

  it("purges only 90 days after the soft delete", () => {
    const purge = (now: string) => ({ type: "PurgeNotification" as const, notificationId: "n1", userId: "u", now });
    given(inboxDecider)(created("n1"), deleted("n1")).when(purge("2027-02-23T11:59:59.999Z")).thenFails("conflict");
    given(inboxDecider)(created("n1"), deleted("n1")).when(purge("2027-02-23T12:00:00.000Z")).then({ type: "NotificationPurged", v: 1, notification_id: "n1", user_id: "u" });
    given(inboxDecider)(created("n1")).when(purge("2030-01-01T00:00:00.000Z")).thenFails("conflict");
    given(inboxDecider)(created("n1"), deleted("n1"), { type: "NotificationPurged", v: 1, notification_id: "n1", user_id: "u" }).when(purge("2030-01-01T00:00:00.000Z")).thenFails("not_found");
  });
});
