import { z } from "zod";
import { ISSUE_STATUSES, REQUESTABLE_STATUSES } from "../../../domain/issues/status.ts";
import { cursorParam, dataModeParam, limitParam } from "../listing.ts";
import { uuid } from "../validation.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

/** A comment's body limit, as for feedback comments. */
const MAX_COMMENT_CHARS = 4_000;

export const issueParams = z.object({ projectId: uuid, issueId: uuid });

const isDevParam = z.enum(["true", "false"]).optional().describe("Only dev (true) or production (false) issues; takes precedence over data_mode");
const statusParam = z.enum(ISSUE_STATUSES).optional();

/** The project list: `data_mode` defaults to all there (SPEC). */
export const projectIssuesQuery = z.object({
  status: statusParam,
  app_id: uuid.optional(),
  is_dev: isDevParam,
  data_mode: dataModeParam.default("all"),
  cursor: cursorParam,
  limit: limitParam(200, 50),
});

/** The cross-project list: `data_mode` defaults to production. */
export const issuesQuery = z.object({
  team_id: uuid.optional(),
  project_id: uuid.optional(),
  status: statusParam,
  app_id: uuid.optional(),
  is_dev: isDevParam,
  data_mode: dataModeParam,
  cursor: cursorParam,
  limit: limitParam(200, 50),
});

export const countQuery = z.object({ team_id: uuid.optional(), project_id: uuid.optional(), app_id: uuid.optional(), data_mode: dataModeParam });

export const detailQuery = z.object({ occurrence_cursor: cursorParam, occurrence_limit: limitParam(200, 50) });

export const statusBody = z.object({
  status: z.enum(REQUESTABLE_STATUSES),
  resolved_at_version: z.string().max(100).nullable().optional().describe("Required (non-empty) when status is resolved"),
});

export const issueBody = z.object({
  id: uuid,
  app_id: uuid,
  project_id: uuid,
  status: z.enum(ISSUE_STATUSES),
  title: z.string(),
  source_module: z.string().nullable(),
  is_dev: z.boolean(),
  occurrence_count: z.number().int(),
  unique_user_count: z.number().int(),
  resolved_at_version: z.string().nullable(),
  first_seen_sdk_version: z.string().nullable(),
  last_seen_sdk_version: z.string().nullable(),
  first_seen_at: timestamp.nullable(),
  last_seen_at: timestamp.nullable(),
  last_notified_at: timestamp.nullable(),
  snoozed_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  fingerprints: z.array(z.string()),
  app_name: z.string(),
});
export const crossProjectIssueBody = issueBody.extend({ project_name: z.string() });

export const issuePageBody = z.object({ issues: z.array(issueBody), cursor: z.string().nullable(), has_more: z.boolean() });
export const crossProjectPageBody = z.object({ issues: z.array(crossProjectIssueBody), cursor: z.string().nullable(), has_more: z.boolean() });

export const countBody = z.object(
  Object.fromEntries([...ISSUE_STATUSES, "open"].map((key) => [key, z.number().int()])) as Record<(typeof ISSUE_STATUSES)[number] | "open", z.ZodNumber>,
);

const occurrenceBody = z.object({
  id: uuid,
  issue_id: uuid,
  session_id: uuid,
  user_id: z.string().nullable(),
  app_version: z.string().nullable(),
  sdk_name: z.string().nullable(),
  sdk_version: z.string().nullable(),
  environment: z.string(),
  event_id: uuid,
  country_code: z.string().nullable(),
  timestamp,
  created_at: timestamp,
});

const issueAttachmentBody = z.object({
  id: uuid,
  event_id: uuid,
  original_filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  uploaded_at: timestamp.nullable(),
  created_at: timestamp,
});

export const commentBody = z.object({
  id: uuid,
  issue_id: uuid,
  author_type: z.enum(["user", "api_key"]).describe("A user or an agent key"),
  author_id: z.string().describe("The user's id, or the agent key's"),
  author_name: z.string().describe("The user's name (their email when they have none), or the key's name, when written"),
  body: z.string().describe("Markdown"),
  created_at: timestamp,
  updated_at: timestamp,
});
export const commentListBody = z.object({ comments: z.array(commentBody) });
export const commentInput = z.object({
  body: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(MAX_COMMENT_CHARS, `must be at most ${MAX_COMMENT_CHARS} characters`)
    .describe(`Markdown, trimmed, then 1 to ${MAX_COMMENT_CHARS} characters`),
});
export const commentParams = issueParams.extend({ commentId: uuid });

export const issueDetailBody = issueBody.extend({
  occurrences: z.array(occurrenceBody),
  occurrence_cursor: z.string().nullable(),
  occurrence_has_more: z.boolean(),
  comments: z.array(commentBody).describe("Not deleted, oldest first"),
  attachments: z.array(issueAttachmentBody),
});

export const exampleIssue = {
  id: "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a",
  app_id: EXAMPLE.appId,
  project_id: EXAMPLE.projectId,
  status: "new",
  title: "Payment 42 failed",
  source_module: "Checkout",
  is_dev: false,
  occurrence_count: 3,
  unique_user_count: 2,
  resolved_at_version: null,
  first_seen_sdk_version: "2.0.0",
  last_seen_sdk_version: "2.1.0",
  first_seen_at: EXAMPLE.at,
  last_seen_at: EXAMPLE.at,
  last_notified_at: null,
  snoozed_at: null,
  created_at: EXAMPLE.at,
  updated_at: EXAMPLE.at,
  fingerprints: ["4b1f0c6d2e9a8b7c6d5e4f3a2b1c0d9e"],
  app_name: "iOS",
} as const;

export const exampleOccurrence = {
  id: "8e9f0a1b-2c3d-4e5f-8a6b-7c8d9e0f1a2b",
  issue_id: exampleIssue.id,
  session_id: EXAMPLE.sessionId,
  user_id: "user-1",
  app_version: "1.4.0",
  sdk_name: "swift",
  sdk_version: "2.1.0",
  environment: "ios",
  event_id: EXAMPLE.eventId,
  country_code: "DE",
  timestamp: EXAMPLE.at,
  created_at: EXAMPLE.at,
} as const;

export const exampleComment = {
  id: "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d",
  issue_id: exampleIssue.id,
  author_type: "user",
  author_id: EXAMPLE.userId,
  author_name: "Ada",
  body: "Fixed in **1.4.1**.",
  created_at: EXAMPLE.at,
  updated_at: EXAMPLE.at,
} as const;

export const mergeBody = z.object({ source_issue_id: uuid.describe("The issue merged into this one; it is deleted") });
