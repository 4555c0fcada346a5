import { sql, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import type { AttachmentFact } from "../../domain/attachments/events.ts";
import { versionedModelProjection } from "../_runtime/versioned-model.ts";

type Context = { tx: DatabaseTransactionConnection; at: string };

const counted = z.object({ project_id: z.string(), size_bytes: z.number() });

async function addUsage(tx: DatabaseTransactionConnection, projectId: string, bytes: number, files: number): Promise<void> {
  await tx.query(sql.unsafe`
    insert into attachment_usage (project_id, used_bytes, file_count) values (${projectId}, ${bytes}, ${files})
    on conflict (project_id) do update
      set used_bytes = attachment_usage.used_bytes + excluded.used_bytes, file_count = attachment_usage.file_count + excluded.file_count`);
}

async function applyFact({ tx, at }: Context, fact: AttachmentFact): Promise<void> {
  switch (fact.type) {
    case "AttachmentReserved": {
      const inserted = await tx.maybeOne(sql.type(counted)`
        insert into attachments (id, project_id, team_id, app_id, event_client_id, user_id, original_filename, content_type,
                                 size_bytes, sha256, is_dev, created_at, expires_at)
        values (${fact.attachment_id}, ${fact.project_id}, ${fact.team_id}, ${fact.app_id}, ${fact.event_client_id}, ${fact.user_id},
                ${fact.original_filename}, ${fact.content_type}, ${fact.size_bytes}, ${fact.sha256}, ${fact.is_dev}, ${at}, ${fact.expires_at})
        on conflict (id) do nothing
        returning project_id, size_bytes`);
      if (inserted) await addUsage(tx, inserted.project_id, inserted.size_bytes, 1);
      return;
    }
    case "AttachmentUploaded":
      await tx.query(sql.unsafe`
        update attachments set storage_key = ${fact.storage_key}, uploaded_at = ${fact.uploaded_at ?? at} where id = ${fact.attachment_id}`);
      return;
    case "AttachmentDeleted": {
      const changed = await tx.maybeOne(sql.type(counted)`
        update attachments set deleted_at = ${fact.deleted_at} where id = ${fact.attachment_id} and deleted_at is null
        returning project_id, size_bytes`);
      if (changed) await addUsage(tx, changed.project_id, -changed.size_bytes, -1);
      return;
    }
    case "AttachmentPurged": {
      const removed = await tx.maybeOne(sql.type(counted.extend({ counted: z.boolean() }))`
        delete from attachments where id = ${fact.attachment_id} returning project_id, size_bytes, deleted_at is null as counted`);
      // A deleted attachment stopped counting when it was deleted.
      if (removed?.counted) await addUsage(tx, removed.project_id, -removed.size_bytes, -1);
      return;
    }
    default: {
      const unhandled: never = fact;
      throw new Error(`attachments cannot apply ${(unhandled as { type: string }).type}`);
    }
  }
}

const isAttachmentFact = (event: { type: string }): event is AttachmentFact => event.type.startsWith("Attachment");

/**
 * The `attachments` read model, from the DOMAIN stream: one row per attachment, each project's
 * usage and the version of its attachments subject (README.md).
 */
export const attachmentsProjection = versionedModelProjection({
  name: "attachments",
  migrationsDir: new URL("./migrations/", import.meta.url),
  subjectKinds: ["attachments"],
  versionsTable: "attachment_versions",
  isOwnFact: isAttachmentFact,
  applyFact: (tx, fact, at) => applyFact({ tx, at }, fact),
});
