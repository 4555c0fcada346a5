import { sql, type DatabaseTransactionConnection } from "slonik";
import { integrationEvents, type IntegrationFact } from "../../domain/integrations/events.ts";
import { eventTypeGuard } from "../../domain/shared/event-types.ts";
import { versionedModelProjection } from "../_runtime/versioned-model.ts";

async function applyFact(tx: DatabaseTransactionConnection, fact: IntegrationFact): Promise<void> {
  switch (fact.type) {
    case "IntegrationCreated":
      // A restore keeps the row's id and creation time; config, secret and state are the new ones.
      await tx.query(sql.unsafe`
        insert into integrations (id, team_id, project_id, provider, config, webhook_secret, enabled, created_at, updated_at, deleted_at)
        values (${fact.integration_id}, ${fact.team_id}, ${fact.project_id}, ${fact.provider}, ${sql.jsonb(fact.config)}, ${fact.webhook_secret},
                true, ${fact.created_at}, ${fact.created_at}, null)
        on conflict (project_id, provider) do update set
          config = excluded.config, webhook_secret = excluded.webhook_secret, enabled = true, updated_at = excluded.updated_at, deleted_at = null`);
      return;
    case "IntegrationUpdated":
      await tx.query(sql.unsafe`
        update integrations set config = ${sql.jsonb(fact.config)}, enabled = ${fact.enabled}, updated_at = ${fact.updated_at}
         where id = ${fact.integration_id}`);
      return;
    case "IntegrationDeleted":
      await tx.query(sql.unsafe`update integrations set deleted_at = ${fact.deleted_at} where id = ${fact.integration_id} and deleted_at is null`);
      return;
    case "IntegrationTransferReceived":
      // The worker acts on it (apps/worker/subprov-transfers.ts); nothing to show.
      return;
    default: {
      const unhandled: never = fact;
      throw new Error(`integrations cannot apply ${(unhandled as { type: string }).type}`);
    }
  }
}

const isIntegrationFact = eventTypeGuard(integrationEvents);

/** The `integrations` read model, from the DOMAIN stream: each project's integrations and the subject's version (README.md). */
export const integrationsProjection = versionedModelProjection({
  name: "integrations",
  migrationsDir: new URL("./migrations/", import.meta.url),
  subjectKinds: ["integrations"],
  versionsTable: "integration_versions",
  isOwnFact: isIntegrationFact,
  applyFact: (tx, fact) => applyFact(tx, fact),
});
