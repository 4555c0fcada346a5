import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { AttachmentsState, AttachmentSummary, Usage } from "../../domain/attachments/decider.ts";
import { subjectVersion } from "../_runtime/subject-versions.ts";

/** Stream sequence of the last fact applied on a project's attachments subject (0: none). */
export async function attachmentsVersion(db: CommonQueryMethods, subject: string): Promise<number> {
  return subjectVersion(db, "attachment_versions", subject);
}

const usageRow = z.object({ bytes: z.number(), files: z.number() });

/** What counts against the project's quota: attachments not deleted, reservations at their declared size. */
export async function projectUsage(db: CommonQueryMethods, projectId: string): Promise<Usage> {
  const row = await db.maybeOne(sql.type(usageRow)`
    select used_bytes as bytes, file_count as files from attachment_usage where project_id = ${projectId}`);
  return row ?? { bytes: 0, files: 0 };
}

/**
 * What counts against one user's quota in the project: the files reserved under their id, and
 * under every anonymous id they claimed (app_users' `app_user_claims`), so a claim hands the
 * anonymous id's files to the claimer without a fact on this read model. `userId` may itself be
 * a claimed anonymous id: it counts as its claimer.
 */
export async function userUsage(db: CommonQueryMethods, projectId: string, userId: string): Promise<Usage> {
  return db.one(sql.type(usageRow)`
    with owner as (
      select coalesce((select c.user_id from app_user_claims c where c.project_id = ${projectId} and c.anonymous_id = ${userId}), ${userId}) as id
    )
    select coalesce(sum(a.size_bytes), 0)::bigint as bytes, count(*)::bigint as files
      from attachments a, owner
     where a.project_id = ${projectId} and a.deleted_at is null
       and (a.user_id = owner.id
            or a.user_id in (select c.anonymous_id from app_user_claims c where c.project_id = ${projectId} and c.user_id = owner.id))`);
}

const summaryRow = z.object({
  team_id: z.string(),
  app_id: z.string(),
  user_id: z.string().nullable(),
  size_bytes: z.number(),
  sha256: z.string(),
  expires_at: z.string(),
  uploaded: z.boolean(),
  deleted_at: z.string().nullable(),
});

async function attachmentSummary(db: CommonQueryMethods, projectId: string, attachmentId: string): Promise<AttachmentSummary | null> {
  const row = await db.maybeOne(sql.type(summaryRow)`
    select team_id, app_id, user_id, size_bytes, sha256, expires_at, uploaded_at is not null as uploaded, deleted_at
      from attachments where id = ${attachmentId} and project_id = ${projectId}`);
  if (!row) return null;
  return {
    teamId: row.team_id,
    appId: row.app_id,
    userId: row.user_id,
    sizeBytes: row.size_bytes,
    sha256: row.sha256,
    expiresAt: row.expires_at,
    uploaded: row.uploaded,
    deletedAt: row.deleted_at,
  };
}

/**
 * The attachments decider's state for one command on the project's subject: the project's usage,
 * the usage of the user the command names (under the id it names them by) and the attachment it
 * names. The caller reads the subject's version before this, as the command handler does.
 */
export async function attachmentsState(db: CommonQueryMethods, projectId: string, names: { userId?: string | null; attachmentId?: string }): Promise<AttachmentsState> {
  const state: AttachmentsState = { project: await projectUsage(db, projectId), users: {}, attachments: {} };
  if (names.userId) state.users[names.userId] = await userUsage(db, projectId, names.userId);
  if (names.attachmentId) {
    const attachment = await attachmentSummary(db, projectId, names.attachmentId);
    if (attachment) state.attachments[names.attachmentId] = attachment;
  }
  return state;
}
