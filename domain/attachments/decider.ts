import type { DomainEvent } from "../events.ts";
import type { Decider } from "../shared/decider.ts";
import { conflict, gone, invalid, notFound, tooLarge, unsupportedMediaType } from "../shared/errors.ts";
import { isRefusedContentType } from "./content-types.ts";
import type { PurgeReason } from "./events.ts";
import { DELETED_GRACE_MS } from "./rules.ts";

/** Bytes and files that count against a quota: attachments not deleted, reservations at their declared size. */
export type Usage = { bytes: number; files: number };

/** One attachment as decisions need it. */
export type AttachmentSummary = {
  teamId: string;
  appId: string;
  userId: string | null;
  sizeBytes: number;
  sha256: string;
  expiresAt: string;
  uploaded: boolean;
  deletedAt: string | null;
};

/**
 * The state of a project's attachments subject as one decision needs it. Loading every attachment
 * of a project for each reservation would grow with the project, so the read model hands over the
 * totals, the usage of the one user the command names (keyed by the id the command names it by)
 * and the one attachment it names; folding facts keeps all three right, which is also how the
 * tests build it.
 */
export type AttachmentsState = {
  project: Usage;
  users: Record<string, Usage>;
  attachments: Record<string, AttachmentSummary>;
};

export type NewAttachment = {
  attachmentId: string;
  projectId: string;
  teamId: string;
  appId: string;
  eventClientId: string;
  userId: string | null;
  originalFilename: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  isDev: boolean;
  expiresAt: string;
  /** Effective quotas of the project (its overrides or the defaults). */
  quotaBytes: number;
  userQuotaBytes: number;
};

export type AttachmentCommand =
  | ({ type: "ReserveAttachment" } & NewAttachment)
  | {
      type: "UploadAttachment";
      attachmentId: string;
      projectId: string;
      /** The app of the client key uploading: only the app that reserved may upload. */
      appId: string;
      storageKey: string;
      /** What the store measured of the body it kept. */
      bytes: number;
      sha256: string;
      uploadedAt: string;
    }
  | { type: "DeleteAttachment"; attachmentId: string; projectId: string; deletedAt: string }
  | { type: "PurgeAttachment"; attachmentId: string; projectId: string; reason: PurgeReason; now: string };

const NO_USAGE: Usage = { bytes: 0, files: 0 };

/**
 * The project quota is checked first: when the project is full, nobody may add to it whatever
 * their own usage, so that is the answer that stays true for every user of the project.
 */
function reserve(state: AttachmentsState, input: NewAttachment): DomainEvent[] {
  if (isRefusedContentType(input.contentType)) {
    throw unsupportedMediaType(`content type ${input.contentType} is not accepted: executables, scripts and web pages are refused`);
  }
  if (state.attachments[input.attachmentId]) throw conflict("an attachment with this id exists");
  const requested = input.sizeBytes;
  if (state.project.bytes + requested > input.quotaBytes) {
    throw tooLarge("the project's attachment quota is exhausted", {
      code: "quota_exhausted",
      quota_bytes: input.quotaBytes,
      used_bytes: state.project.bytes,
      requested_bytes: requested,
    });
  }
  if (input.userId !== null) {
    const used = (state.users[input.userId] ?? NO_USAGE).bytes;
    if (used + requested > input.userQuotaBytes) {
      throw tooLarge("the user's attachment quota is exhausted", {
        code: "user_quota_exhausted",
        quota_bytes: input.userQuotaBytes,
        used_bytes: used,
        requested_bytes: requested,
      });
    }
  }
  return [
    {
      type: "AttachmentReserved",
      v: 1,
      attachment_id: input.attachmentId,
      project_id: input.projectId,
      team_id: input.teamId,
      app_id: input.appId,
      event_client_id: input.eventClientId,
      user_id: input.userId,
      original_filename: input.originalFilename,
      content_type: input.contentType,
      size_bytes: input.sizeBytes,
      sha256: input.sha256,
      is_dev: input.isDev,
      expires_at: input.expiresAt,
    },
  ];
}

function upload(state: AttachmentsState, command: Extract<AttachmentCommand, { type: "UploadAttachment" }>): DomainEvent[] {
  const attachment = state.attachments[command.attachmentId];
  // Another app's attachment is not revealed to this app's key.
  if (!attachment || attachment.appId !== command.appId) throw notFound("attachment");
  if (attachment.deletedAt !== null) throw gone("the attachment was deleted");
  // The answer the SPEC names (409 `already_uploaded`), also for the loser of two uploads at once.
  if (attachment.uploaded) throw conflict("already_uploaded");
  if (Date.parse(command.uploadedAt) > Date.parse(attachment.expiresAt)) throw gone("the reservation expired; reserve the attachment again");
  if (command.bytes !== attachment.sizeBytes) throw invalid(`body: ${command.bytes} bytes received, ${attachment.sizeBytes} declared`);
  if (command.sha256 !== attachment.sha256) throw invalid("body: its sha256 differs from the one declared");
  return [{ type: "AttachmentUploaded", v: 1, attachment_id: command.attachmentId, project_id: command.projectId, storage_key: command.storageKey, uploaded_at: command.uploadedAt }];
}

function remove(state: AttachmentsState, command: Extract<AttachmentCommand, { type: "DeleteAttachment" }>): DomainEvent[] {
  const attachment = state.attachments[command.attachmentId];
  if (!attachment || attachment.deletedAt !== null) throw notFound("attachment");
  return [{ type: "AttachmentDeleted", v: 1, attachment_id: command.attachmentId, project_id: command.projectId, team_id: attachment.teamId, deleted_at: command.deletedAt }];
}

/**
 * The cleanup picks its candidates from the read model and asks here; the rule is checked again on
 * the subject's current state, so a reservation uploaded (or an attachment deleted later) since the
 * cleanup looked is refused rather than purged.
 */
function purge(state: AttachmentsState, command: Extract<AttachmentCommand, { type: "PurgeAttachment" }>): DomainEvent[] {
  const attachment = state.attachments[command.attachmentId];
  if (!attachment) throw notFound("attachment");
  const now = Date.parse(command.now);
  const due =
    command.reason === "deleted_grace_elapsed"
      ? attachment.deletedAt !== null && Date.parse(attachment.deletedAt) + DELETED_GRACE_MS <= now
      : !attachment.uploaded && Date.parse(attachment.expiresAt) <= now;
  if (!due) throw conflict(`the attachment is not due for purging (${command.reason})`);
  return [{ type: "AttachmentPurged", v: 1, attachment_id: command.attachmentId, project_id: command.projectId, reason: command.reason }];
}

function decide(state: AttachmentsState, command: AttachmentCommand): DomainEvent[] {
  switch (command.type) {
    case "ReserveAttachment":
      return reserve(state, command);
    case "UploadAttachment":
      return upload(state, command);
    case "DeleteAttachment":
      return remove(state, command);
    case "PurgeAttachment":
      return purge(state, command);
  }
}

const plus = (usage: Usage | undefined, bytes: number, files: number): Usage => ({
  bytes: (usage ?? NO_USAGE).bytes + bytes,
  files: (usage ?? NO_USAGE).files + files,
});

/** The usage without an attachment that stops counting (deleted, or purged while it still counted). */
function withoutUsage(state: AttachmentsState, attachment: AttachmentSummary): Pick<AttachmentsState, "project" | "users"> {
  const users = { ...state.users };
  if (attachment.userId !== null && users[attachment.userId]) users[attachment.userId] = plus(users[attachment.userId], -attachment.sizeBytes, -1);
  return { project: plus(state.project, -attachment.sizeBytes, -1), users };
}

function evolve(state: AttachmentsState, fact: DomainEvent): AttachmentsState {
  switch (fact.type) {
    case "AttachmentReserved": {
      const users = fact.user_id === null ? state.users : { ...state.users, [fact.user_id]: plus(state.users[fact.user_id], fact.size_bytes, 1) };
      const summary: AttachmentSummary = {
        teamId: fact.team_id,
        appId: fact.app_id,
        userId: fact.user_id,
        sizeBytes: fact.size_bytes,
        sha256: fact.sha256,
        expiresAt: fact.expires_at,
        uploaded: false,
        deletedAt: null,
      };
      return { project: plus(state.project, fact.size_bytes, 1), users, attachments: { ...state.attachments, [fact.attachment_id]: summary } };
    }
    case "AttachmentUploaded": {
      const attachment = state.attachments[fact.attachment_id];
      if (!attachment) return state;
      return { ...state, attachments: { ...state.attachments, [fact.attachment_id]: { ...attachment, uploaded: true } } };
    }
    case "AttachmentDeleted": {
      const attachment = state.attachments[fact.attachment_id];
      if (!attachment || attachment.deletedAt !== null) return state;
      return { ...withoutUsage(state, attachment), attachments: { ...state.attachments, [fact.attachment_id]: { ...attachment, deletedAt: fact.deleted_at } } };
    }
    case "AttachmentPurged": {
      const attachment = state.attachments[fact.attachment_id];
      if (!attachment) return state;
      const { [fact.attachment_id]: _purged, ...attachments } = state.attachments;
      // A deleted attachment stopped counting when it was deleted.
      return attachment.deletedAt === null ? { ...withoutUsage(state, attachment), attachments } : { ...state, attachments };
    }
    default:
      return state;
  }
}

/**
 * A project's attachments: quotas per project and per user, decided on the project's one subject
 * so concurrent reservations never overshoot them; the upload, deletion and purge rules of one
 * attachment.
 */
export const attachmentsDecider: Decider<AttachmentsState, AttachmentCommand, DomainEvent> = {
  initialState: { project: NO_USAGE, users: {}, attachments: {} },
  decide,
  evolve,
};
