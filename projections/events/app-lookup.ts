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

const keyAppRow = appRow.extend({ key_expires_at: z.string().nullable() });

/**
 * The active (not deleted) app an app-bound key (client or import) posts into, with the key's
 * expiry, from the directory's `api_keys` and `apps` views; null when the key or its app is deleted.
 */
export async function appOfKey(db: CommonQueryMethods, keyId: string): Promise<{ app: IngestApp; keyExpiresAt: string | null } | null> {
  const row = await db.maybeOne(sql.type(keyAppRow)`
    select a.id, a.team_id, a.project_id, a.platform, a.bundle_id, k.expires_at as key_expires_at
      from api_keys k join apps a on a.id = k.app_id
     where k.id = ${keyId} and k.deleted_at is null and a.deleted_at is null`);
  if (!row) return null;
  const { key_expires_at, ...app } = row;
  return { app, keyExpiresAt: key_expires_at };
}
