import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { PLATFORMS } from "../../domain/ingest/rules.ts";

const appRow = z.object({
  id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  platform: z.enum(PLATFORMS),
  bundle_id: z.string().nullable(),
});
export type IngestApp = z.infer<typeof appRow>;

/** The active (not deleted) app an ingest request posts into, from the directory's `apps` view. */
export const activeAppById = (db: CommonQueryMethods, appId: string) =>
  db.maybeOne(sql.type(appRow)`
    select id, team_id, project_id, platform, bundle_id from apps where id = ${appId} and deleted_at is null`);
