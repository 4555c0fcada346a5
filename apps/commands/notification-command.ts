import { deviceDecider, type DeviceCommand } from "../../domain/notifications/device-decider.ts";
import { inboxDecider, type InboxCommand } from "../../domain/notifications/inbox-decider.ts";
import { tokenKey } from "../../domain/notifications/rules.ts";
import type { Actor } from "../../domain/shared/envelope.ts";
import { deviceState, inboxState } from "../../projections/notifications/decision-state.ts";
import { handleCommand } from "./command-handler.ts";
import type { CommandDeps } from "./deps.ts";

const userOf = (command: InboxCommand): string => (command.type === "CreateNotification" ? command.notification.user_id : command.userId);

/**
 * Runs an inbox command on its user's inbox subject with the notifications it names. The API, the
 * dispatcher and the cleanup run theirs through here.
 * @throws DomainError from the decider; unavailable after too many lost races or when the read model lags
 */
export function runInboxCommand(deps: CommandDeps, command: InboxCommand, actor: Actor) {
  const userId = userOf(command);
  const names =
    command.type === "MarkAllNotificationsRead"
      ? { unread: true }
      : { ids: [command.type === "CreateNotification" ? command.notification.notification_id : command.notificationId] };
  return handleCommand(deps, {
    aggregate: { type: "inbox", id: userId },
    decider: inboxDecider,
    load: () => inboxState(deps.pool, userId, names),
    command,
    actor,
  });
}

/**
 * Runs a device command on its push token's subject (`token` is the token, or its key when removing
 * by id), so every registration of one token is decided on one version.
 */
export function runDeviceCommand(deps: CommandDeps, key: { token: string } | { tokenKey: string }, command: DeviceCommand, actor: Actor) {
  const subjectKey = "token" in key ? tokenKey(key.token) : key.tokenKey;
  return handleCommand(deps, {
    aggregate: { type: "device", id: subjectKey },
    decider: deviceDecider,
    load: () => deviceState(deps.pool, subjectKey),
    command,
    actor,
  });
}
