import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { PURGE_REASONS } from "../../domain/attachments/events.ts";

const candidateRow = z.object({
  id: z.string(),
  project_id: z.string(),
  storage_key: z.string().nullable(),
  size_bytes: z.number(),
  reason: z.enum(PURGE_REASONS),
});
export type PurgeCandidate = z.infer<typeof candidateRow>;

/**
 * Attachments the cleanup should purge at `now`: deleted ones whose grace ended (`deletedBefore`),
 * and reservations never uploaded whose upload URL expired, deleted or not. The decider checks
 * each again on its subject's current state before the purge is recorded.
 */
export const purgeCandidates = (db: CommonQueryMethods, now: Date, deletedBefore: Date) =>
  db.any(sql.type(candidateRow)`
    select id, project_id, storage_key, size_bytes,
           case when deleted_at is not null and deleted_at <= ${deletedBefore.toISOString()}::timestamptz
                then 'deleted_grace_elapsed' else 'reservation_expired' end as reason
      from attachments
     where (deleted_at is not null and deleted_at <= ${deletedBefore.toISOString()}::timestamptz)
        or (uploaded_at is null and expires_at <= ${now.toISOString()}::timestamptz)
     order by created_at, id`);

/**
 * Of the attachment ids given, the storage key each row points at (rows of deleted attachments
 * included: their bytes stay until the purge). An id without a row is absent from the map.
 */
export async function storageKeysOf(db: CommonQueryMethods, attachmentIds: readonly string[]): Promise<Map<string, string | null>> {
  if (attachmentIds.length === 0) return new Map();
  const rows = await db.any(sql.type(z.object({ id: z.string(), storage_key: z.string().nullable() }))`
    select id, storage_key from attachments where id = any(${sql.array(attachmentIds, "uuid")})`);
  return new Map(rows.map((row) => [row.id, row.storage_key]));
}
