import { z } from "zod";
import { ISSUE_STATUSES, REQUESTABLE_STATUSES } from "./status.ts";

/**
 * Issue facts, all on the DOMAIN subject of their project (`<ns>.d.issues.<project_id>`): one
 * subject orders a project's grouping decisions, so a fingerprint opens one issue however many
 * workers see it. Ids and times are decided before the append (ids derived from the events that
 * caused them), so a replay of the issues read model rebuilds identical rows.
 */

/** A fingerprint seen for the first time in its (app, dev flag) opened an issue. `imported`: from an import batch (history), which notifies nobody. */
export const issueOpened = z.object({
  type: z.literal("IssueOpened"),
  v: z.literal(1),
  issue_id: z.string(),
  project_id: z.string(),
  team_id: z.string(),
  app_id: z.string(),
  is_dev: z.boolean(),
  fingerprint: z.string(),
  title: z.string(),
  source_module: z.string().nullable(),
  /** The event that opened it. */
  event_id: z.string(),
  imported: z.boolean(),
  opened_at: z.string(),
});

/** The first error of a session for an issue: one occurrence per (issue, session). */
export const issueOccurrenceRecorded = z.object({
  type: z.literal("IssueOccurrenceRecorded"),
  v: z.literal(1),
  occurrence_id: z.string(),
  issue_id: z.string(),
  project_id: z.string(),
  event_id: z.string(),
  event_client_id: z.string().nullable(),
  session_id: z.string(),
  user_id: z.string().nullable(),
  app_version: z.string().nullable(),
  sdk_name: z.string().nullable(),
  sdk_version: z.string().nullable(),
  environment: z.string(),
  country_code: z.string().nullable(),
  /** The event's time. */
  timestamp: z.string(),
  recorded_at: z.string(),
});

/** Another fingerprint joins an issue: an error in the same session within the burst window of its first. */
export const issueFingerprintAliased = z.object({
  type: z.literal("IssueFingerprintAliased"),
  v: z.literal(1),
  issue_id: z.string(),
  project_id: z.string(),
  fingerprint: z.string(),
  aliased_at: z.string(),
});

/** A resolved issue occurred again in an app version strictly newer than the one it was resolved in. */
export const issueRegressed = z.object({
  type: z.literal("IssueRegressed"),
  v: z.literal(1),
  issue_id: z.string(),
  project_id: z.string(),
  team_id: z.string(),
  app_id: z.string(),
  is_dev: z.boolean(),
  title: z.string(),
  resolved_at_version: z.string(),
  app_version: z.string(),
  regressed_at: z.string(),
});

/** A snoozed issue occurred again: back to new, `snoozed_at` cleared. */
export const issueReopened = z.object({
  type: z.literal("IssueReopened"),
  v: z.literal(1),
  issue_id: z.string(),
  project_id: z.string(),
  team_id: z.string(),
  app_id: z.string(),
  is_dev: z.boolean(),
  title: z.string(),
  reopened_at: z.string(),
});

/** A manual move (PATCH). `resolved_at_version` and `snoozed_at` are the values after it. */
export const issueStatusChanged = z.object({
  type: z.literal("IssueStatusChanged"),
  v: z.literal(1),
  issue_id: z.string(),
  project_id: z.string(),
  team_id: z.string(),
  from: z.enum(ISSUE_STATUSES),
  to: z.enum(REQUESTABLE_STATUSES),
  resolved_at_version: z.string().nullable(),
  snoozed_at: z.string().nullable(),
  changed_at: z.string(),
});

/**
 * The source issue joins the target and is gone: its fingerprints and comments move over, its
 * occurrences too, except those of sessions the target already has (one occurrence per session).
 */
export const issuesMerged = z.object({
  type: z.literal("IssuesMerged"),
  v: z.literal(1),
  target_issue_id: z.string(),
  source_issue_id: z.string(),
  project_id: z.string(),
  team_id: z.string(),
  merged_at: z.string(),
});

/** Who wrote a comment: a user or an agent key, with the name shown beside it at the time. */
export const issueCommentAuthor = z.object({ type: z.enum(["user", "api_key"]), id: z.string(), name: z.string() });
export type IssueCommentAuthor = z.infer<typeof issueCommentAuthor>;

/** A Markdown comment on an issue. */
export const issueCommentAdded = z.object({
  type: z.literal("IssueCommentAdded"),
  v: z.literal(1),
  comment_id: z.string(),
  issue_id: z.string(),
  project_id: z.string(),
  team_id: z.string(),
  author: issueCommentAuthor,
  body: z.string(),
  created_at: z.string(),
});

/** The author replaced a comment's body. */
export const issueCommentEdited = z.object({
  type: z.literal("IssueCommentEdited"),
  v: z.literal(1),
  comment_id: z.string(),
  issue_id: z.string(),
  project_id: z.string(),
  team_id: z.string(),
  body: z.string(),
  edited_at: z.string(),
});

/** Soft deletion: the comment is no longer shown. */
export const issueCommentDeleted = z.object({
  type: z.literal("IssueCommentDeleted"),
  v: z.literal(1),
  comment_id: z.string(),
  issue_id: z.string(),
  project_id: z.string(),
  team_id: z.string(),
  deleted_at: z.string(),
});

/** One issue as a digest lists it: its occurrences in the period, and whether it opened in it. */
export const digestIssue = z.object({ issue_id: z.string(), title: z.string(), status: z.enum(ISSUE_STATUSES), occurrences: z.number().int(), is_new: z.boolean() });
export type DigestIssue = z.infer<typeof digestIssue>;

/**
 * A project's digest for one period of its issue alert frequency: its production issues that
 * occurred in the period, the busiest by name. The notification source sends it to the team; the
 * read model remembers the period, so no period is sent twice.
 */
export const issueDigestPrepared = z.object({
  type: z.literal("IssueDigestPrepared"),
  v: z.literal(1),
  project_id: z.string(),
  team_id: z.string(),
  frequency: z.enum(["hourly", "6_hourly", "daily", "weekly"]),
  period_start: z.string(),
  period_end: z.string(),
  issue_count: z.number().int(),
  occurrence_count: z.number().int(),
  issues: z.array(digestIssue),
  prepared_at: z.string(),
});

export const issueEvents = [
  issueOpened,
  issueOccurrenceRecorded,
  issueFingerprintAliased,
  issueRegressed,
  issueReopened,
  issueStatusChanged,
  issuesMerged,
  issueCommentAdded,
  issueCommentEdited,
  issueCommentDeleted,
  issueDigestPrepared,
] as const;

/** What detection appends by the hundred: only the issues read model reads each one. */
export const isDetectionFactType = (type: string): boolean => type === "IssueOpened" || type === "IssueOccurrenceRecorded" || type === "IssueFingerprintAliased";

export type IssueOpened = z.infer<typeof issueOpened>;
export type IssueOccurrenceRecorded = z.infer<typeof issueOccurrenceRecorded>;
export type IssueFingerprintAliased = z.infer<typeof issueFingerprintAliased>;
export type IssueDigestPrepared = z.infer<typeof issueDigestPrepared>;
export type IssueFact = z.infer<(typeof issueEvents)[number]>;
