import { sql, type DatabaseTransactionConnection } from "slonik";
import { isNotificationFact, type NotificationFact } from "../../domain/notifications/events.ts";
import { tokenKey } from "../../domain/notifications/rules.ts";
import { versionedModelProjection } from "../_runtime/versioned-model.ts";

async function recordDelivery(tx: DatabaseTransactionConnection, fact: Extract<NotificationFact, { type: "NotificationDelivered" | "NotificationDeliveryFailed" }>): Promise<void> {
  const delivered = fact.type === "NotificationDelivered";
  const at = delivered ? fact.delivered_at : fact.failed_at;
  await tx.query(sql.unsafe`
    insert into notification_deliveries (notification_id, channel, device_key, status, reason, attempts, updated_at)
    values (${fact.notification_id}, ${fact.channel}, ${fact.device_id ?? ""}, ${delivered ? "delivered" : fact.retrying ? "failed" : "refused"},
            ${delivered ? null : fact.reason}, 1, ${at})
    on conflict (notification_id, channel, device_key) do update
      set status = excluded.status, reason = excluded.reason, attempts = notification_deliveries.attempts + 1, updated_at = excluded.updated_at`);
}

async function applyFact(tx: DatabaseTransactionConnection, fact: NotificationFact): Promise<void> {
  switch (fact.type) {
    case "NotificationCreated":
      await tx.query(sql.unsafe`
        insert into notifications (id, user_id, type, title, body, link, team_id, data, source_id, created_at)
        values (${fact.notification_id}, ${fact.user_id}, ${fact.notification_type}, ${fact.title}, ${fact.body}, ${fact.link},
                ${fact.team_id}, ${sql.jsonb(fact.data as never)}, ${fact.source_id}, ${fact.created_at})
        on conflict (id) do nothing`);
      return;
    case "NotificationReadChanged":
      await tx.query(sql.unsafe`update notifications set read_at = ${fact.read_at} where id = ${fact.notification_id}`);
      return;
    case "NotificationsMarkedRead":
      await tx.query(sql.unsafe`
        update notifications set read_at = ${fact.read_at} where id = any(${sql.array(fact.notification_ids, "uuid")})`);
      return;
    case "NotificationDeleted":
      await tx.query(sql.unsafe`update notifications set deleted_at = ${fact.deleted_at} where id = ${fact.notification_id}`);
      return;
    case "NotificationPurged":
      await tx.query(sql.unsafe`delete from notifications where id = ${fact.notification_id}`);
      await tx.query(sql.unsafe`delete from notification_deliveries where notification_id = ${fact.notification_id}`);
      return;
    case "NotificationDelivered":
    case "NotificationDeliveryFailed":
      return recordDelivery(tx, fact);
    case "DeviceRegistered":
      await tx.query(sql.unsafe`
        insert into devices (id, user_id, token, token_key, platform, environment, app_version, device_model, os_version, last_seen_at, created_at)
        values (${fact.device_id}, ${fact.user_id}, ${fact.token}, ${tokenKey(fact.token)}, ${fact.platform}, ${fact.environment},
                ${fact.app_version}, ${fact.device_model}, ${fact.os_version}, ${fact.last_seen_at}, ${fact.created_at})
        on conflict (id) do update
          set user_id = excluded.user_id, platform = excluded.platform, environment = excluded.environment,
              app_version = excluded.app_version, device_model = excluded.device_model, os_version = excluded.os_version,
              last_seen_at = excluded.last_seen_at`);
      return;
    case "DeviceRemoved":
      await tx.query(sql.unsafe`delete from devices where id = ${fact.device_id}`);
      return;
    default: {
      const unhandled: never = fact;
      throw new Error(`notifications cannot apply ${(unhandled as { type: string }).type}`);
    }
  }
}

/** The `notifications` read model, from the DOMAIN stream: inboxes, delivery outcomes and push devices (README.md). */
export const notificationsProjection = versionedModelProjection({
  name: "notifications",
  migrationsDir: new URL("./migrations/", import.meta.url),
  subjectKinds: ["inbox", "delivery", "device"],
  versionsTable: "notification_versions",
  isOwnFact: (event): event is NotificationFact => isNotificationFact(event),
  applyFact: (tx, fact) => applyFact(tx, fact),
});
