import type { Logger } from "pino";
import { decodeDomainEnvelope } from "../../domain/events.ts";
import { SUBPROV } from "../../domain/integrations/providers.ts";
import { activeIntegration } from "../../projections/integrations/queries.ts";
import { runDurable } from "../../streams/durable.ts";
import type { CommandDeps } from "../commands/deps.ts";
import type { SubprovSettings } from "../integrations/subprov-client.ts";
import { syncUser } from "../integrations/subprov-sync.ts";

/**
 * Re-syncs the users of every TRANSFER the provider reported (`IntegrationTransferReceived` on the
 * project's integrations subject), from a durable consumer: the webhook answered as soon as the
 * fact was stored, and a crash before the re-sync only delays it. A provider failure throws, so
 * the message comes back later and every user of it is synced again (a sync is idempotent). An
 * integration deleted or disabled since, and users the provider no longer knows, are skipped.
 */
export function startSubprovTransfers(deps: CommandDeps & { logger: Logger; subprov: SubprovSettings }) {
  return runDurable(deps.log, {
    name: "subprov_transfers",
    stream: "DOMAIN",
    filter: "integrations.>",
    logger: deps.logger,
    retryDelayMs: (attempt) => Math.min(60_000, 2_000 * 2 ** (attempt - 1)),
    handle: async (message) => {
      for (const event of decodeDomainEnvelope(message.data).events) {
        if (event.type !== "IntegrationTransferReceived" || event.provider !== SUBPROV) continue;
        const integration = await activeIntegration(deps.pool, event.project_id, SUBPROV);
        if (!integration || !integration.enabled || integration.id !== event.integration_id) continue;
        for (const userId of event.user_ids) await syncUser(deps, deps.subprov, integration, userId);
        deps.logger.info({ project_id: event.project_id, event_id: event.event_id, users: event.user_ids.length }, "subprov transfer re-synced");
      }
    },
  });
}
