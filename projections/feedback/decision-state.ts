import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { FeedbackState } from "../../domain/feedback/decider.ts";
import { FEEDBACK_STATUSES } from "../../domain/feedback/rules.ts";
import { subjectVersion } from "../_runtime/subject-versions.ts";

/** Stream sequence of the last fact applied on a feedback subject (0: none). */
export async function feedbackVersion(db: CommonQueryMethods, subject: string): Promise<number> {
  return subjectVersion(db, "feedback_versions", subject);
}

const recordRow = z.object({ team_id: z.string(), project_id: z.string(), status: z.enum(FEEDBACK_STATUSES), deleted: z.boolean() });
const commentRow = z.object({ id: z.string(), author_type: z.enum(["user", "api_key"]), author_id: z.string(), deleted: z.boolean() });

/**
 * The feedback decider's state for one record, comments included: a record holds few, and its
 * commands are rare. The caller reads the subject's version before this, as the command handler does.
 */
export async function feedbackState(db: CommonQueryMethods, feedbackId: string): Promise<FeedbackState> {
  const record = await db.maybeOne(sql.type(recordRow)`
    select team_id, project_id, status, deleted_at is not null as deleted from feedback where id = ${feedbackId}`);
  if (!record) return { record: null };
  const comments = await db.any(sql.type(commentRow)`
    select id, author_type, author_id, deleted_at is not null as deleted from feedback_comments where feedback_id = ${feedbackId}`);
  return {
    record: {
      teamId: record.team_id,
      projectId: record.project_id,
      status: record.status,
      deleted: record.deleted,
      comments: Object.fromEntries(comments.map((comment) => [comment.id, { authorType: comment.author_type, authorId: comment.author_id, deleted: comment.deleted }])),
    },
  };
}
