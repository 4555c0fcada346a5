import { z } from "zod";
import {
  CONTENT_TYPE_PATTERN,
  FILENAME_CONTROL_CHARACTERS,
  MAX_CONTENT_TYPE_CHARS,
  MAX_FILENAME_CHARS,
  SHA256_PATTERN,
} from "../../../domain/attachments/rules.ts";
import { MAX_FIELD_CHARS } from "../../../domain/ingest/rules.ts";
import { chars, uuid } from "../validation.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

/** POST /v1/ingest/attachment (SPEC, Attachments). */
export const reserveBody = z.object({
  client_event_id: uuid.describe("The client_event_id of the event the file belongs to; the event may arrive before or after"),
  original_filename: chars(MAX_FILENAME_CHARS)
    .refine((name) => !FILENAME_CONTROL_CHARACTERS.test(name), "must not contain control characters")
    .describe(`1 to ${MAX_FILENAME_CHARS} characters`),
  content_type: z
    .string()
    .trim()
    .max(MAX_CONTENT_TYPE_CHARS)
    .regex(CONTENT_TYPE_PATTERN, "must be a media type like image/png")
    .describe("Executables, scripts and web pages are refused with 415 (docs/decisions.md, Attachments)"),
  size_bytes: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe("Exact size of the file; at least 1 and within the quotas"),
  sha256: z
    .string()
    .regex(SHA256_PATTERN, "must be 64 hexadecimal digits")
    .transform((hash) => hash.toLowerCase())
    .describe("SHA-256 of the file, hex (either case; stored lower-case)"),
  // As in an ingested event, null and "" mean "no user".
  user_id: z
    .literal("")
    .or(chars(MAX_FIELD_CHARS))
    .nullable()
    .optional()
    .transform((id) => id || undefined)
    .describe("The app user the file counts against (per-user quota); absent, null or empty for none"),
  is_dev: z
    .boolean()
    .nullable()
    .optional()
    .transform((flag) => flag ?? false)
    .describe("Default false"),
});

export const reservedBody = z.object({
  attachment_id: z.string().uuid(),
  upload_url: z.string().describe("PUT the bytes here with the same client key"),
  expires_at: timestamp.describe("The upload must arrive before this"),
});

/** 413 at reservation: which quota, its effective size, what is used and what was asked for. */
export const quotaRefusal = z
  .object({
    error: z.string(),
    code: z.enum(["user_quota_exhausted", "quota_exhausted"]),
    quota_bytes: z.number().int(),
    used_bytes: z.number().int(),
    requested_bytes: z.number().int(),
  })
  .describe("A quota is exhausted (`user_quota_exhausted` needs `user_id`); the event itself still posts");

export const uploadedBody = z.object({ uploaded: z.literal(true) });

/** An attachment (SPEC, Attachment resource). */
export const attachmentBody = z.object({
  id: z.string().uuid(),
  project_id: z.string().uuid(),
  app_id: z.string().uuid(),
  event_client_id: z.string().uuid(),
  event_id: z.string().uuid().nullable().describe("The event sent with event_client_id in the same app; null until it is stored"),
  issue_id: z.string().uuid().nullable(),
  user_id: z.string().nullable().describe("The claiming user once an anonymous id was claimed"),
  original_filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string(),
  is_dev: z.boolean(),
  uploaded_at: timestamp.nullable().describe("Null while only reserved"),
  created_at: timestamp,
});

export const downloadUrlBody = z.object({
  url: z.string().describe("GET without credentials: the token in it is the credential"),
  expires_at: timestamp,
  original_filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int(),
});

export const attachmentDetailBody = attachmentBody.extend({
  download_url: downloadUrlBody.optional().describe("Omitted until the bytes are uploaded; valid 60 seconds"),
});

export const attachmentPageBody = z.object({
  attachments: z.array(attachmentBody),
  cursor: z.string().nullable().describe("Null when has_more is false"),
  has_more: z.boolean(),
});

export const usageBody = z.object({
  project_id: z.string().uuid(),
  used_bytes: z.number().int().describe("Attachments not deleted, reservations at their declared size: what the quota check counts"),
  quota_bytes: z.number().int(),
  user_quota_bytes: z.number().int(),
  file_count: z.number().int(),
  user_id: z.string().optional(),
  user_used_bytes: z.number().int().optional(),
  user_file_count: z.number().int().optional(),
});

export const okBody = z.object({ ok: z.literal(true) });

export const exampleAttachment = {
  id: "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d",
  project_id: EXAMPLE.projectId,
  app_id: EXAMPLE.appId,
  event_client_id: "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910",
  event_id: EXAMPLE.eventId,
  issue_id: null,
  user_id: "user-42",
  original_filename: "screenshot.png",
  content_type: "image/png",
  size_bytes: 482_113,
  sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  is_dev: false,
  uploaded_at: "2026-11-25T12:00:02.140Z",
  created_at: "2026-11-25T12:00:01.020Z",
} satisfies z.input<typeof attachmentBody>;

export const exampleReservation = {
  client_event_id: exampleAttachment.event_client_id,
  original_filename: exampleAttachment.original_filename,
  content_type: exampleAttachment.content_type,
  size_bytes: exampleAttachment.size_bytes,
  sha256: exampleAttachment.sha256,
  user_id: "user-42",
} satisfies z.input<typeof reserveBody>;
