import { z } from "zod";

/**
 * Attachment facts, all on the DOMAIN subject of their project (`<ns>.d.attachments.<project_id>`):
 * one subject orders every reservation of a project, so its quotas are decided on one version
 * (see decider.ts). Ids, times and storage keys come in with the command.
 */

/** A file announced by an SDK: its declared size counts against the quotas from now on. */
export const attachmentReserved = z.object({
  type: z.literal("AttachmentReserved"),
  v: z.literal(1),
  attachment_id: z.string(),
  project_id: z.string(),
  team_id: z.string(),
  app_id: z.string(),
  event_client_id: z.string(),
  user_id: z.string().nullable(),
  original_filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int().positive(),
  sha256: z.string(),
  is_dev: z.boolean(),
  /** The upload must arrive before this; the cleanup purges a reservation left without bytes. */
  expires_at: z.string(),
});

/** The bytes are stored under `storage_key` and matched the declared size and hash. */
export const attachmentUploaded = z.object({
  type: z.literal("AttachmentUploaded"),
  v: z.literal(1),
  attachment_id: z.string(),
  project_id: z.string(),
  storage_key: z.string(),
  uploaded_at: z.string().optional(),
});

/** Soft deletion: hidden at once, bytes and row kept for the grace period (rules.ts). */
export const attachmentDeleted = z.object({
  type: z.literal("AttachmentDeleted"),
  v: z.literal(1),
  attachment_id: z.string(),
  project_id: z.string(),
  team_id: z.string(),
  /** When the grace period starts: the purge decision reads it from the fact, not the clock. */
  deleted_at: z.string(),
});

export const PURGE_REASONS = ["deleted_grace_elapsed", "reservation_expired"] as const;
export type PurgeReason = (typeof PURGE_REASONS)[number];

/** Hard deletion by the cleanup: the row is gone; the cleanup removes the bytes after this fact. */
export const attachmentPurged = z.object({
  type: z.literal("AttachmentPurged"),
  v: z.literal(1),
  attachment_id: z.string(),
  project_id: z.string(),
  reason: z.enum(PURGE_REASONS),
});

export const attachmentEvents = [attachmentReserved, attachmentUploaded, attachmentDeleted, attachmentPurged] as const;
export type AttachmentReserved = z.infer<typeof attachmentReserved>;
export type AttachmentUploaded = z.infer<typeof attachmentUploaded>;
export type AttachmentDeleted = z.infer<typeof attachmentDeleted>;
export type AttachmentPurged = z.infer<typeof attachmentPurged>;
export type AttachmentFact = AttachmentReserved | AttachmentUploaded | AttachmentDeleted | AttachmentPurged;
