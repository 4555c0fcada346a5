import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { IntegrationsState } from "../../domain/integrations/decider.ts";
import { PROVIDER_IDS } from "../../domain/integrations/providers.ts";
import { subjectVersion } from "../_runtime/subject-versions.ts";

/** Stream sequence of the last fact applied on a project's integrations subject (0: none). */
export async function integrationsVersion(db: CommonQueryMethods, subject: string): Promise<number> {
  return subjectVersion(db, "integration_versions", subject);
}

const stateRow = z.object({
  id: z.string(),
  team_id: z.string(),
  provider: z.enum(PROVIDER_IDS),
  config: z.record(z.string()),
  enabled: z.boolean(),
  deleted: z.boolean(),
});

/** The integrations decider's state for one project, deleted integrations included (a create restores them). */
export async function integrationsState(db: CommonQueryMethods, projectId: string): Promise<IntegrationsState> {
  const rows = await db.any(sql.type(stateRow)`
    select id, team_id, provider, config, enabled, deleted_at is not null as deleted from integrations where project_id = ${projectId}`);
  return {
    byProvider: Object.fromEntries(
      rows.map((row) => [row.provider, { id: row.id, teamId: row.team_id, config: row.config, enabled: row.enabled, deleted: row.deleted }]),
    ),
  };
}
