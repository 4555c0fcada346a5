import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { knownTypes } from "../../../domain/notifications/types.ts";
import { invalid, notFound } from "../../../domain/shared/errors.ts";
import { listNotifications, unreadCount, visibleNotification } from "../../../projections/notifications/queries.ts";
import { runInboxCommand } from "../../commands/notification-command.ts";
import { actorOf, SESSION } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { page, parseKeysetCursor } from "../listing.ts";
import { errorBody, idParams, TAGS } from "../schemas/common.ts";
import {
  exampleNotification,
  idBody,
  markAllBody,
  markedBody,
  notificationEnvelope,
  notificationPage,
  notificationsQuery,
  readBody,
  unreadCountBody,
} from "../schemas/notifications.ts";

const tags = [TAGS.notifications];

/** `/v1/notifications…`: the caller's own inbox. Users only (SESSION): agent keys get 403. */
export function notificationRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "List the caller's notifications",
          description: "Newest first; soft-deleted ones are never listed. `type` takes one type or a comma list; unknown types are ignored.",
          tags,
          querystring: notificationsQuery,
          response: { 200: notificationPage },
          examples: { 200: { notifications: [exampleNotification], cursor: null, has_more: false } },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const { query } = request;
        const rows = await listNotifications(deps.pool, {
          userId: request.user.userId,
          readState: query.read_state,
          types: knownTypes(query.type),
          after: parseKeysetCursor(query.cursor),
          limit: query.limit,
        });
        const result = page(rows, query.limit, (row) => `${row.created_at}|${row.id}`);
        return { notifications: [...result.items], cursor: result.cursor, has_more: result.has_more };
      },
    );

    app.get(
      "/unread-count",
      {
        schema: { summary: "Count the caller's unread notifications", tags, response: { 200: unreadCountBody }, examples: { 200: { count: 3 } } },
        config: { access: SESSION },
      },
      async (request) => ({ count: await unreadCount(deps.pool, request.user.userId) }),
    );

    app.post(
      "/mark-all-read",
      {
        schema: {
          summary: "Mark every unread notification read",
          description: "Optionally only those of `type` (unknown types are ignored); `marked` is the number changed.",
          tags,
          body: markAllBody,
          response: { 200: markedBody },
          examples: { 200: { marked: 2 } },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const [type, ...more] = knownTypes(request.body.type);
        if (more.length > 0) throw invalid("type: one type at a time");
        const { facts } = await runInboxCommand(
          deps,
          { type: "MarkAllNotificationsRead", userId: request.user.userId, notificationType: type, at: new Date().toISOString() },
          actorOf(request.user),
        );
        const marked = facts.reduce((sum, fact) => sum + (fact.type === "NotificationsMarkedRead" ? fact.notification_ids.length : 0), 0);
        return { marked };
      },
    );

    app.patch(
      "/:id",
      {
        schema: {
          summary: "Mark a notification read or unread",
          description: "`read` true (the default) sets `read_at` to now; false clears it.",
          tags,
          params: idParams,
          body: readBody,
          response: { 200: notificationEnvelope, 404: errorBody },
          examples: { 200: { notification: { ...exampleNotification, read_at: exampleNotification.created_at } } },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const userId = request.user.userId;
        const { id } = request.params;
        await runInboxCommand(deps, { type: "SetNotificationRead", notificationId: id, userId, read: request.body.read, at: new Date().toISOString() }, actorOf(request.user));
        const notification = await visibleNotification(deps.pool, userId, id);
        if (!notification) throw notFound("notification");
        return { notification };
      },
    );

    app.delete(
      "/:id",
      {
        schema: {
          summary: "Delete a notification",
          description: "Hidden at once; hard-deleted 90 days later by `notification_cleanup`.",
          tags,
          params: idParams,
          response: { 200: idBody, 404: errorBody },
          examples: { 200: { id: exampleNotification.id } },
        },
        config: { access: SESSION },
      },
      async (request) => {
        const { id } = request.params;
        await runInboxCommand(deps, { type: "DeleteNotification", notificationId: id, userId: request.user.userId, at: new Date().toISOString() }, actorOf(request.user));
        return { id };
      },
    );
  };
}
