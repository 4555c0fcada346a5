import { z } from "zod";
import { FEEDBACK_STATUSES } from "./rules.ts";

/**
 * Feedback facts, all on the DOMAIN subject of their feedback record (`<ns>.d.feedback.<feedback_id>`):
 * a record's status, comments and deletion are decided on its own version, and a claim never
 * touches them (projections/feedback/README.md says why). Ids and times come in with the command.
 */

/** An SDK sent feedback. `user_id` stays the id it was sent under; reads show a claimer's id. */
export const feedbackSubmitted = z.object({
  type: z.literal("FeedbackSubmitted"),
  v: z.literal(1),
  feedback_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  app_id: z.string(),
  message: z.string(),
  session_id: z.string().nullable(),
  user_id: z.string().nullable(),
  submitter_name: z.string().nullable(),
  submitter_email: z.string().nullable(),
  is_dev: z.boolean(),
  environment: z.string().nullable(),
  os_version: z.string().nullable(),
  app_version: z.string().nullable(),
  sdk_name: z.string().nullable(),
  sdk_version: z.string().nullable(),
  device_model: z.string().nullable(),
  created_at: z.string(),
});

export const feedbackStatusChanged = z.object({
  type: z.literal("FeedbackStatusChanged"),
  v: z.literal(1),
  feedback_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  previous_status: z.enum(FEEDBACK_STATUSES),
  status: z.enum(FEEDBACK_STATUSES),
});

/** Who wrote a comment: a user or an agent key, with the name shown beside it at the time. */
export const commentAuthor = z.object({ type: z.enum(["user", "api_key"]), id: z.string(), name: z.string() });

export const feedbackCommentAdded = z.object({
  type: z.literal("FeedbackCommentAdded"),
  v: z.literal(1),
  feedback_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  comment_id: z.string(),
  author: commentAuthor,
  body: z.string(),
  created_at: z.string(),
});

export const feedbackCommentEdited = z.object({
  type: z.literal("FeedbackCommentEdited"),
  v: z.literal(1),
  feedback_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  comment_id: z.string(),
  body: z.string(),
  edited_at: z.string(),
});

export const feedbackCommentDeleted = z.object({
  type: z.literal("FeedbackCommentDeleted"),
  v: z.literal(1),
  feedback_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  comment_id: z.string(),
  deleted_at: z.string(),
});

/** Soft deletion: hidden from every read at once, the row kept. */
export const feedbackDeleted = z.object({
  type: z.literal("FeedbackDeleted"),
  v: z.literal(1),
  feedback_id: z.string(),
  team_id: z.string(),
  project_id: z.string(),
  deleted_at: z.string(),
});

export const feedbackEvents = [feedbackSubmitted, feedbackStatusChanged, feedbackCommentAdded, feedbackCommentEdited, feedbackCommentDeleted, feedbackDeleted] as const;
export type FeedbackSubmitted = z.infer<typeof feedbackSubmitted>;
export type CommentAuthor = z.infer<typeof commentAuthor>;
export type FeedbackFact =
  | FeedbackSubmitted
  | z.infer<typeof feedbackStatusChanged>
  | z.infer<typeof feedbackCommentAdded>
  | z.infer<typeof feedbackCommentEdited>
  | z.infer<typeof feedbackCommentDeleted>
  | z.infer<typeof feedbackDeleted>;
