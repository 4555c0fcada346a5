import type { Logger } from "pino";
import { decodeDomainEnvelopeOf } from "../../../domain/events.ts";
import { notificationId } from "../../../domain/notifications/rules.ts";
import { SYSTEM_ACTOR } from "../../../domain/shared/envelope.ts";
import { runDurable } from "../../../streams/durable.ts";
import type { CommandDeps } from "../../commands/deps.ts";
import { runInboxCommand } from "../../commands/notification-command.ts";
import type { NotificationSource } from "./source.ts";

export type DispatcherDeps = CommandDeps & { logger: Logger; publicBaseUrl: string };

/**
 * One durable consumer per source: each source message becomes a `NotificationCreated` in every
 * recipient's inbox, at most one per type and recipient. The id derives from the message (its
 * envelope id), the type and the recipient, and the inbox decider creates an id once, so a
 * redelivered message (a crash before the ack) notifies nobody twice.
 * Delivery by email and push follows from the inbox facts (delivery.ts), never blocking them.
 */
export function startNotificationSources(deps: DispatcherDeps, sources: readonly NotificationSource[]) {
  return sources.map((source) =>
    runDurable(deps.log, {
      name: `notify_${source.name}`,
      stream: "DOMAIN",
      filter: source.filter,
      logger: deps.logger,
      handle: async (message) => {
        const envelope = decodeDomainEnvelopeOf(message.data, source.wanted);
        const sourceId = envelope.id;
        for (const draft of await source.notices(envelope, deps)) {
          await runInboxCommand(
            deps,
            {
              type: "CreateNotification",
              notification: {
                notification_id: notificationId(sourceId, draft.type, draft.userId),
                user_id: draft.userId,
                notification_type: draft.type,
                title: draft.title,
                body: draft.body,
                link: draft.link,
                team_id: draft.teamId,
                data: draft.data,
                channels: draft.channels,
                source_id: sourceId,
                created_at: envelope.at,
              },
            },
            SYSTEM_ACTOR,
          );
        }
      },
    }),
  );
}
