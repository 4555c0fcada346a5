import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { PROVIDER_IDS } from "../../domain/integrations/providers.ts";

/**
 * An integration as the routes read it. `config` is the stored one, unmasked: the API masks it
 * when it answers (domain/integrations/providers.ts). The webhook secret is not in this row; only
 * `webhookSecretOf` reads it.
 */
export const integrationRow = z.object({
  id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  provider: z.enum(PROVIDER_IDS),
  config: z.record(z.string()),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type IntegrationRow = z.infer<typeof integrationRow>;

const COLUMNS = sql.fragment`id, team_id, project_id, provider, config, enabled, created_at, updated_at`;

/** A project's active (not deleted) integrations, oldest first. */
export const activeIntegrations = (db: CommonQueryMethods, projectId: string) =>
  db.any(sql.type(integrationRow)`
    select ${COLUMNS} from integrations where project_id = ${projectId} and deleted_at is null order by created_at, id`);

/** The project's active integration of `provider`, enabled or not; null otherwise. */
export const activeIntegration = (db: CommonQueryMethods, projectId: string, provider: string) =>
  db.maybeOne(sql.type(integrationRow)`
    select ${COLUMNS} from integrations where project_id = ${projectId} and provider = ${provider} and deleted_at is null`);

/** The webhook secret of the project's active integration of `provider`; null without one. */
export const webhookSecretOf = (db: CommonQueryMethods, projectId: string, provider: string) =>
  db.maybeOneFirst(sql.type(z.object({ webhook_secret: z.string() }))`
    select webhook_secret from integrations where project_id = ${projectId} and provider = ${provider} and deleted_at is null`);

/** Every enabled, active integration of `provider` whose project is not deleted (the daily sync). */
export const enabledIntegrations = (db: CommonQueryMethods, provider: string) =>
  db.any(sql.type(integrationRow)`
    select i.id, i.team_id, i.project_id, i.provider, i.config, i.enabled, i.created_at, i.updated_at
      from integrations i join projects p on p.id = i.project_id and p.deleted_at is null
     where i.provider = ${provider} and i.deleted_at is null and i.enabled
     order by i.project_id`);
