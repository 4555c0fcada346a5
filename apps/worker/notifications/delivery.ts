import type { Logger } from "pino";
import { decodeDomainEnvelope, type DomainEvent } from "../../../domain/events.ts";
import type { NotificationCreated } from "../../../domain/notifications/events.ts";
import { DomainError } from "../../../domain/shared/errors.ts";
import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { userById } from "../../../projections/directory/queries.ts";
import { deliveryOutcomes, pushTargets } from "../../../projections/notifications/queries.ts";
import { append } from "../../../streams/append.ts";
import { runDurable } from "../../../streams/durable.ts";
import type { CommandDeps } from "../../commands/deps.ts";
import { runDeviceCommand } from "../../commands/notification-command.ts";
import type { Mailer } from "../../mail.ts";
import type { PushGateway } from "./apns.ts";

export type DeliveryDeps = CommandDeps & { logger: Logger; mailer: Mailer; push: PushGateway | null };

/** Redeliveries of a notification with a failed channel: 2 s, 4 s, 8 s … at most 5 minutes apart. */
export const deliveryBackoffMs = (attempt: number): number => Math.min(2_000 * 2 ** Math.max(0, attempt - 1), 300_000);

type Outcome = Extract<DomainEvent, { type: "NotificationDelivered" | "NotificationDeliveryFailed" }>;

/**
 * Records an outcome on the notification's delivery subject and waits until the read model holds
 * it, so a redelivery of the notification skips what already went out. The message id names the
 * attempt: a publish retried after a timeout is stored once.
 */
async function record(deps: DeliveryDeps, outcome: Outcome, attempt: number): Promise<void> {
  const at = new Date().toISOString();
  const msgId = `delivery:${outcome.notification_id}:${outcome.channel}:${outcome.device_id ?? ""}:${attempt}`;
  const payload = JSON.stringify({ id: msgId, at, actor: SYSTEM_ACTOR, events: [outcome] });
  const { seq } = await append(deps.log, deps.log.names.aggregateSubject("delivery", outcome.notification_id), payload, { msgId });
  await deps.progress.waitFor(["notifications"], seq, deps.config.readYourWritesTimeoutMs);
}

/**
 * Sends one notification on its channels and records each outcome. Returns the reasons of the
 * deliveries worth retrying; everything delivered or refused for good is not tried again.
 */
async function deliver(deps: DeliveryDeps, fact: NotificationCreated): Promise<string[]> {
  const done = await deliveryOutcomes(deps.pool, fact.notification_id);
  const pending = (channel: string, deviceId: string | null) => {
    const previous = done.get(`${channel}:${deviceId ?? ""}`);
    return previous?.status === "failed" || previous === undefined ? (previous?.attempts ?? 0) + 1 : null;
  };
  const base = { v: 1 as const, notification_id: fact.notification_id, user_id: fact.user_id };
  const delivered = (channel: "email" | "push", deviceId: string | null, attempt: number) =>
    record(deps, { ...base, type: "NotificationDelivered", channel, device_id: deviceId, delivered_at: new Date().toISOString() }, attempt);
  const failed = (channel: "email" | "push", deviceId: string | null, attempt: number, reason: string, retrying: boolean) =>
    record(deps, { ...base, type: "NotificationDeliveryFailed", channel, device_id: deviceId, reason, attempt, retrying, failed_at: new Date().toISOString() }, attempt);
  const retry: string[] = [];

  if (fact.channels.includes("email")) {
    const attempt = pending("email", null);
    if (attempt !== null) {
      const to = (await userById(deps.pool, fact.user_id))?.email;
      if (!to) await failed("email", null, attempt, "the user has no email address", false);
      else {
        try {
          await deps.mailer.send({ to, subject: fact.title, text: `${fact.body}\n${fact.link ? `\n${fact.link}\n` : ""}` });
          await delivered("email", null, attempt);
        } catch (error) {
          await failed("email", null, attempt, (error as Error).message, true);
          retry.push(`email: ${(error as Error).message}`);
        }
      }
    }
  }

  // Without APNs settings push is off: no attempt, no outcome (docs/notifications.md).
  if (fact.channels.includes("push") && deps.push) {
    for (const device of await pushTargets(deps.pool, fact.user_id)) {
      const attempt = pending("push", device.id);
      if (attempt === null) continue;
      if (device.platform !== "ios") {
        await failed("push", device.id, attempt, "android push is not configured", false);
        continue;
      }
      const outcome = await deps.push.send(
        { token: device.token, environment: device.environment },
        { title: fact.title, body: fact.body, notificationId: fact.notification_id, type: fact.notification_type, link: fact.link },
      );
      if (outcome.kind === "delivered") await delivered("push", device.id, attempt);
      else if (outcome.kind === "retry") {
        await failed("push", device.id, attempt, outcome.reason, true);
        retry.push(`push to ${device.id}: ${outcome.reason}`);
      } else {
        await failed("push", device.id, attempt, outcome.reason, false);
        if (outcome.removeDevice) await removeDevice(deps, device.id, fact.user_id, device.token, outcome.removeDevice);
      }
    }
  }
  return retry;
}

/** The gateway refused the token for good: the device goes (a fact), unless it changed hands or went meanwhile. */
async function removeDevice(deps: DeliveryDeps, deviceId: string, userId: string, token: string, reason: "unregistered" | "bad_token"): Promise<void> {
  try {
    await runDeviceCommand(deps, { token }, { type: "RemoveDevice", deviceId, userId, reason }, SYSTEM_ACTOR);
  } catch (error) {
    if (!(error instanceof DomainError && error.code === "not_found")) throw error;
  }
}

/**
 * The delivery side of the dispatcher: a durable consumer of the inbox subjects. The inbox fact is
 * already stored when this runs, so a slow or failing channel never holds the inbox back; a
 * delivery worth retrying fails the message, which comes back with backoff (at most 20 times,
 * streams/durable.ts), and only the deliveries not yet done are tried again.
 */
export function startNotificationDelivery(deps: DeliveryDeps) {
  return runDurable(deps.log, {
    name: "notification_delivery",
    stream: "DOMAIN",
    filter: "inbox.>",
    logger: deps.logger,
    retryDelayMs: deliveryBackoffMs,
    handle: async (message) => {
      const retry: string[] = [];
      for (const event of decodeDomainEnvelope(message.data).events) {
        if (event.type === "NotificationCreated" && event.channels.length > 0) retry.push(...(await deliver(deps, event)));
      }
      if (retry.length > 0) throw new Error(`deliveries to retry: ${retry.join("; ")}`);
    },
  });
}
