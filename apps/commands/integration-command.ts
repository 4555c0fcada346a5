import { integrationsDecider, type IntegrationCommand } from "../../domain/integrations/decider.ts";
import type { Actor } from "../../domain/shared/envelope.ts";
import { integrationsState } from "../../projections/integrations/decision-state.ts";
import { handleCommand } from "./command-handler.ts";
import type { CommandDeps } from "./deps.ts";

/**
 * Runs an integration command on its project's subject with the project's integrations as the
 * read model holds them. `messageId`, when the command comes from a provider's delivery, is
 * derived from the delivery, so a redelivery is dropped by the stream's dedup.
 * @throws DomainError from the decider; unavailable after too many lost races or when the read model lags
 */
export function runIntegrationCommand(deps: CommandDeps, command: IntegrationCommand, actor: Actor, messageId?: string) {
  return handleCommand(deps, {
    aggregate: { type: "integrations", id: command.projectId },
    decider: integrationsDecider,
    load: () => integrationsState(deps.pool, command.projectId),
    command,
    actor,
    messageId,
  });
}
