import { z } from "zod";
import { FEEDBACK_STATUSES, MAX_COMMENT_CHARS, MAX_FEEDBACK_MESSAGE_CHARS } from "../../../domain/feedback/rules.ts";
import { ENVIRONMENTS, MAX_FIELD_CHARS } from "../../../domain/ingest/rules.ts";
import { longerThan } from "../../../domain/shared/text.ts";
import { cursorParam, dataModeParam, limitParam } from "../listing.ts";
import { chars, email, uuid } from "../validation.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

/** Text that is trimmed first, then 1 to `max` characters. */
const trimmedText = (max: number) =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .refine((value) => !longerThan(value, max), `must be at most ${max} characters`)
    .describe(`Trimmed, then 1 to ${max} characters`);

// As in an ingested event, null and "" mean "not sent".
const optionalField = z
  .literal("")
  .or(chars(MAX_FIELD_CHARS))
  .nullable()
  .optional()
  .transform((value) => value || null);

/** POST /v1/feedback: an SDK's feedback form (docs/decisions.md, Feedback). */
export const submitBody = z.object({
  bundle_id: z.string().optional().describe("Required for non-backend apps and must equal the app's bundle_id, as on ingest"),
  message: trimmedText(MAX_FEEDBACK_MESSAGE_CHARS),
  session_id: uuid.nullable().optional().describe("The SDK session the feedback was sent in"),
  user_id: optionalField.describe("The app user; an anonymous id shows as its claimer once claimed"),
  submitter_name: optionalField,
  submitter_email: z.literal("").or(email).nullable().optional().transform((value) => value || null),
  is_dev: z.boolean().nullable().optional().transform((flag) => flag ?? false).describe("Default false"),
  environment: z.enum(ENVIRONMENTS).optional().describe("Allowed for the app's platform as on ingest; absent means the platform's only one (null on apple)"),
  os_version: optionalField,
  app_version: optionalField,
  sdk_name: optionalField,
  sdk_version: optionalField,
  device_model: optionalField,
});

export const submittedBody = z.object({ id: z.string().uuid(), created_at: timestamp });

export const feedbackBody = z.object({
  id: z.string().uuid(),
  project_id: z.string().uuid(),
  app_id: z.string().uuid(),
  message: z.string(),
  status: z.enum(FEEDBACK_STATUSES),
  session_id: z.string().uuid().nullable(),
  user_id: z.string().nullable().describe("The claiming user once an anonymous id was claimed"),
  submitter_name: z.string().nullable(),
  submitter_email: z.string().nullable(),
  is_dev: z.boolean(),
  environment: z.enum(ENVIRONMENTS).nullable(),
  os_version: z.string().nullable(),
  app_version: z.string().nullable(),
  sdk_name: z.string().nullable(),
  sdk_version: z.string().nullable(),
  device_model: z.string().nullable(),
  comment_count: z.number().int().describe("Comments not deleted"),
  created_at: timestamp,
  updated_at: timestamp.describe("The submission, or the last status change"),
});

export const commentBody = z.object({
  id: z.string().uuid(),
  feedback_id: z.string().uuid(),
  author_type: z.enum(["user", "api_key"]),
  author_id: z.string().describe("The user's id, or the agent key's"),
  author_name: z.string().describe("The user's name (their email when they have none), or the key's name, when written"),
  body: z.string(),
  created_at: timestamp,
  edited_at: timestamp.nullable(),
});

export const feedbackDetailBody = feedbackBody.extend({ comments: z.array(commentBody).describe("Not deleted, oldest first") });

export const feedbackPageBody = z.object({
  feedback: z.array(feedbackBody),
  cursor: z.string().nullable().describe("Null when has_more is false"),
  has_more: z.boolean(),
});

export const listQuery = z.object({
  status: z.enum(FEEDBACK_STATUSES).optional(),
  app_id: uuid.optional(),
  data_mode: dataModeParam,
  cursor: cursorParam.describe("The `cursor` of the previous page: `<created_at>`, or `<created_at>|<id>` inside a run of equal times"),
  limit: limitParam(200, 50),
});

export const statusBody = z.object({ status: z.enum(FEEDBACK_STATUSES).describe("Any move between the four is allowed") });
export const commentInput = z.object({ body: trimmedText(MAX_COMMENT_CHARS) });

export const feedbackParams = z.object({ projectId: uuid, id: uuid });
export const commentParams = feedbackParams.extend({ commentId: uuid });

export const exampleFeedback = {
  id: "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a",
  project_id: EXAMPLE.projectId,
  app_id: EXAMPLE.appId,
  message: "The export button does nothing on my iPad.",
  status: "new",
  session_id: EXAMPLE.sessionId,
  user_id: "user-42",
  submitter_name: "Ada",
  submitter_email: "ada@example.com",
  is_dev: false,
  environment: "ipados",
  os_version: "18.1",
  app_version: "2.4.0",
  sdk_name: "swift",
  sdk_version: "1.9.2",
  device_model: "iPad13,4",
  comment_count: 1,
  created_at: EXAMPLE.at,
  updated_at: EXAMPLE.at,
} satisfies z.input<typeof feedbackBody>;

export const exampleComment = {
  id: "8e9f0a1b-2c3d-4e4f-8a5b-6c7d8e9f0a1b",
  feedback_id: exampleFeedback.id,
  author_type: "user",
  author_id: EXAMPLE.userId,
  author_name: "Grace",
  body: "Reproduced on 2.4.0; fixed in the next build.",
  created_at: "2026-11-25T12:30:00.000Z",
  edited_at: null,
} satisfies z.input<typeof commentBody>;

export const exampleSubmission = {
  bundle_id: "com.example.app",
  message: exampleFeedback.message,
  session_id: EXAMPLE.sessionId,
  user_id: "user-42",
  submitter_name: "Ada",
  submitter_email: "ada@example.com",
  environment: "ipados",
  os_version: "18.1",
  app_version: "2.4.0",
  sdk_name: "swift",
  sdk_version: "1.9.2",
  device_model: "iPad13,4",
} satisfies z.input<typeof submitBody>;
