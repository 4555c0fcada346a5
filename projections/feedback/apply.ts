import { sql, type DatabaseTransactionConnection } from "slonik";
import type { FeedbackFact } from "../../domain/feedback/events.ts";
import { versionedModelProjection } from "../_runtime/versioned-model.ts";

async function applyFact(tx: DatabaseTransactionConnection, at: string, fact: FeedbackFact): Promise<void> {
  switch (fact.type) {
    case "FeedbackSubmitted":
      await tx.query(sql.unsafe`
        insert into feedback (id, team_id, project_id, app_id, message, status, session_id, user_id, submitter_name, submitter_email,
                              is_dev, environment, os_version, app_version, sdk_name, sdk_version, device_model, created_at, updated_at)
        values (${fact.feedback_id}, ${fact.team_id}, ${fact.project_id}, ${fact.app_id}, ${fact.message}, 'new', ${fact.session_id}, ${fact.user_id},
                ${fact.submitter_name}, ${fact.submitter_email}, ${fact.is_dev}, ${fact.environment}, ${fact.os_version}, ${fact.app_version},
                ${fact.sdk_name}, ${fact.sdk_version}, ${fact.device_model}, ${fact.created_at}, ${fact.created_at})
        on conflict (id) do nothing`);
      return;
    case "FeedbackStatusChanged":
      await tx.query(sql.unsafe`update feedback set status = ${fact.status}, updated_at = ${at} where id = ${fact.feedback_id}`);
      return;
    case "FeedbackCommentAdded":
      await tx.query(sql.unsafe`
        insert into feedback_comments (id, feedback_id, author_type, author_id, author_name, body, created_at)
        values (${fact.comment_id}, ${fact.feedback_id}, ${fact.author.type}, ${fact.author.id}, ${fact.author.name}, ${fact.body}, ${fact.created_at})
        on conflict (id) do nothing`);
      return;
    case "FeedbackCommentEdited":
      await tx.query(sql.unsafe`update feedback_comments set body = ${fact.body}, edited_at = ${fact.edited_at} where id = ${fact.comment_id}`);
      return;
    case "FeedbackCommentDeleted":
      await tx.query(sql.unsafe`update feedback_comments set deleted_at = ${fact.deleted_at} where id = ${fact.comment_id} and deleted_at is null`);
      return;
    case "FeedbackDeleted":
      await tx.query(sql.unsafe`update feedback set deleted_at = ${fact.deleted_at} where id = ${fact.feedback_id} and deleted_at is null`);
      return;
    default: {
      const unhandled: never = fact;
      throw new Error(`feedback cannot apply ${(unhandled as { type: string }).type}`);
    }
  }
}

const isFeedbackFact = (event: { type: string }): event is FeedbackFact => event.type.startsWith("Feedback");

/** The `feedback` read model, from the DOMAIN stream: records, their comments and each record's version (README.md). */
export const feedbackProjection = versionedModelProjection({
  name: "feedback",
  migrationsDir: new URL("./migrations/", import.meta.url),
  subjectKinds: ["feedback"],
  versionsTable: "feedback_versions",
  isOwnFact: isFeedbackFact,
  applyFact: (tx, fact, at) => applyFact(tx, at, fact),
});
