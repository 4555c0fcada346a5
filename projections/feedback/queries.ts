import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { DataMode } from "../../domain/analytics/window.ts";
import { FEEDBACK_STATUSES, type FeedbackStatus } from "../../domain/feedback/rules.ts";
import { ENVIRONMENTS } from "../../domain/ingest/rules.ts";

/**
 * A feedback record as the API shows it. `user_id` is resolved here, at read time: the claimer of
 * the anonymous id it was sent under (app_users' `app_user_claims`), else that id. Deleted records
 * are never served, so a claim after a deletion leaves nothing visible behind (README.md).
 */
export const feedbackRow = z.object({
  id: z.string(),
  project_id: z.string(),
  app_id: z.string(),
  message: z.string(),
  status: z.enum(FEEDBACK_STATUSES),
  session_id: z.string().nullable(),
  user_id: z.string().nullable(),
  submitter_name: z.string().nullable(),
  submitter_email: z.string().nullable(),
  is_dev: z.boolean(),
  environment: z.enum(ENVIRONMENTS).nullable(),
  os_version: z.string().nullable(),
  app_version: z.string().nullable(),
  sdk_name: z.string().nullable(),
  sdk_version: z.string().nullable(),
  device_model: z.string().nullable(),
  comment_count: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type FeedbackRow = z.infer<typeof feedbackRow>;

const COLUMNS = sql.fragment`
  f.id, f.project_id, f.app_id, f.message, f.status, f.session_id, coalesce(c.user_id, f.user_id) as user_id, f.submitter_name,
  f.submitter_email, f.is_dev, f.environment, f.os_version, f.app_version, f.sdk_name, f.sdk_version, f.device_model,
  (select count(*) from feedback_comments fc where fc.feedback_id = f.id and fc.deleted_at is null)::int as comment_count,
  f.created_at, f.updated_at`;

const CLAIMER = sql.fragment`left join app_user_claims c on c.project_id = f.project_id and c.anonymous_id = f.user_id`;

export type FeedbackFilter = { projectId: string; status?: FeedbackStatus; appId?: string; dataMode: DataMode };

/** Position after the last row of the previous page, newest first; `id` breaks ties between equal creation times. */
export type FeedbackCursor = { createdAt: string; id?: string };

function cursorCondition(cursor: FeedbackCursor) {
  const at = sql.fragment`${cursor.createdAt}::timestamptz`;
  if (cursor.id === undefined) return sql.fragment`f.created_at < ${at}`;
  return sql.fragment`f.created_at <= ${at} and (f.created_at, f.id) < (${at}, ${cursor.id}::uuid)`;
}

/** One page of a project's feedback not deleted, newest first, with one row more than `limit` when more exist. */
export function listFeedback(db: CommonQueryMethods, filter: FeedbackFilter, page: { cursor?: FeedbackCursor; limit: number }) {
  const conditions = [sql.fragment`f.deleted_at is null`, sql.fragment`f.project_id = ${filter.projectId}`];
  if (filter.status !== undefined) conditions.push(sql.fragment`f.status = ${filter.status}`);
  if (filter.appId !== undefined) conditions.push(sql.fragment`f.app_id = ${filter.appId}`);
  if (filter.dataMode !== "all") conditions.push(sql.fragment`f.is_dev = ${filter.dataMode === "development"}`);
  if (page.cursor) conditions.push(cursorCondition(page.cursor));
  return db.any(sql.type(feedbackRow)`
    select ${COLUMNS} from feedback f ${CLAIMER}
     where ${sql.join(conditions, sql.fragment` and `)}
     order by f.created_at desc, f.id desc limit ${page.limit + 1}`);
}

/** A project's feedback record when it is not deleted; null otherwise. */
export const visibleFeedback = (db: CommonQueryMethods, projectId: string, feedbackId: string) =>
  db.maybeOne(sql.type(feedbackRow)`
    select ${COLUMNS} from feedback f ${CLAIMER} where f.id = ${feedbackId} and f.project_id = ${projectId} and f.deleted_at is null`);

export const commentRow = z.object({
  id: z.string(),
  feedback_id: z.string(),
  author_type: z.enum(["user", "api_key"]),
  author_id: z.string(),
  author_name: z.string(),
  body: z.string(),
  created_at: z.string(),
  edited_at: z.string().nullable(),
});
export type CommentRow = z.infer<typeof commentRow>;

/** A record's comments not deleted, oldest first. */
export const commentsOf = (db: CommonQueryMethods, feedbackId: string) =>
  db.any(sql.type(commentRow)`
    select id, feedback_id, author_type, author_id, author_name, body, created_at, edited_at from feedback_comments
     where feedback_id = ${feedbackId} and deleted_at is null order by created_at, id`);

/** One comment not deleted; null otherwise. */
export const visibleComment = (db: CommonQueryMethods, feedbackId: string, commentId: string) =>
  db.maybeOne(sql.type(commentRow)`
    select id, feedback_id, author_type, author_id, author_name, body, created_at, edited_at from feedback_comments
     where feedback_id = ${feedbackId} and id = ${commentId} and deleted_at is null`);
