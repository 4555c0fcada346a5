import { z } from "zod";
import { NOTIFICATION_TYPES } from "../../../domain/notifications/types.ts";
import { cursorParam, limitParam } from "../listing.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

const typeParam = z.string().max(500).optional().describe(`One type or a comma list (${NOTIFICATION_TYPES.join(", ")}); unknown values are ignored`);

export const notificationsQuery = z.object({
  read_state: z.enum(["unread", "read", "all"]).default("all"),
  type: typeParam,
  cursor: cursorParam.describe("The `cursor` of the previous page: `<created_at>|<id>`"),
  limit: limitParam(200, 50),
});

/** SPEC, Notification; the internal `data` payload is never answered. */
export const notificationBody = z.object({
  id: z.string().uuid(),
  type: z.string(),
  title: z.string(),
  body: z.string(),
  link: z.string().nullable(),
  team_id: z.string().uuid().nullable(),
  read_at: timestamp.nullable(),
  created_at: timestamp,
});

export const notificationPage = z.object({
  notifications: z.array(notificationBody),
  cursor: z.string().nullable().describe("`<timestamp>|<id>`; null when has_more is false"),
  has_more: z.boolean(),
});
export const notificationEnvelope = z.object({ notification: notificationBody });
export const unreadCountBody = z.object({ count: z.number().int() });
export const markAllBody = z.object({ type: typeParam }).default({});
export const markedBody = z.object({ marked: z.number().int() });
export const readBody = z.object({ read: z.boolean().default(true).describe("true sets read_at to now, false clears it") }).default({});
export const idBody = z.object({ id: z.string().uuid() });

export const exampleNotification = {
  id: "2b3c4d5e-6f7a-5b8c-9d0e-1f2a3b4c5d6e",
  type: "job.completed",
  title: "Job issue_scan completed",
  body: "The issue_scan job you started completed.",
  link: "https://analytics.example.com/dashboard/jobs",
  team_id: EXAMPLE.teamId,
  read_at: null,
  created_at: EXAMPLE.at,
} satisfies z.input<typeof notificationBody>;
