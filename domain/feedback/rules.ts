/** The vocabulary and limits of feedback (docs/decisions.md, Feedback). */

export const FEEDBACK_STATUSES = ["new", "in_review", "addressed", "dismissed"] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

/** A submission's message, counted after trimming. */
export const MAX_FEEDBACK_MESSAGE_CHARS = 4_000;
/** A comment's body: the same bound as a message, so a reply can quote one whole. */
export const MAX_COMMENT_CHARS = 4_000;
