import { attachmentsDecider, type AttachmentCommand } from "../../domain/attachments/decider.ts";
import type { Actor } from "../../domain/shared/envelope.ts";
import { attachmentsState } from "../../projections/attachments/decision-state.ts";
import { handleCommand } from "./command-handler.ts";
import type { CommandDeps } from "./deps.ts";

/**
 * Runs an attachment command on its project's attachments subject, with the state it needs: the
 * project's usage, the reserving user's usage and the attachment it names. The API and the
 * cleanup run their commands through here.
 * @throws DomainError from the decider; unavailable after too many lost races or when the read model lags
 */
export function runAttachmentCommand(deps: CommandDeps, command: AttachmentCommand, actor: Actor) {
  const names = command.type === "ReserveAttachment" ? { userId: command.userId, attachmentId: command.attachmentId } : { attachmentId: command.attachmentId };
  return handleCommand(deps, {
    aggregate: { type: "attachments", id: command.projectId },
    decider: attachmentsDecider,
    load: () => attachmentsState(deps.pool, command.projectId, names),
    command,
    actor,
  });
}
