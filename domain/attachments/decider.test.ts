import { describe, expect, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import { attachmentsDecider, type AttachmentCommand, type NewAttachment } from "./decider.ts";
import { isRefusedContentType } from "./content-types.ts";

type Fact<T extends DomainEvent["type"]> = Extract<DomainEvent, { type: T }>;

const SHA = "a".repeat(64);
const RESERVED_AT = "2026-11-25T12:00:00.000Z";
const EXPIRES_AT = "2026-11-26T12:00:00.000Z";

const reserved = (id: string, fields: Partial<Fact<"AttachmentReserved">> = {}): DomainEvent => ({
  type: "AttachmentReserved",
  v: 1,
  attachment_id: id,
  project_id: "p",
  team_id: "t",
  app_id: "app",
  event_client_id: "e",
  user_id: "alice",
  original_filename: "screen.png",
  content_type: "image/png",
  size_bytes: 100,
  sha256: SHA,
  is_dev: false,
  expires_at: EXPIRES_AT,
  ...fields,
});
const uploaded = (id: string): DomainEvent => ({ type: "AttachmentUploaded", v: 1, attachment_id: id, project_id: "p", storage_key: `p/${id}/u1`, uploaded_at: RESERVED_AT });
const deleted = (id: string, at = "2026-11-25T13:00:00.000Z"): DomainEvent => ({ type: "AttachmentDeleted", v: 1, attachment_id: id, project_id: "p", team_id: "t", deleted_at: at });
const purged = (id: string, reason: Fact<"AttachmentPurged">["reason"]): DomainEvent => ({ type: "AttachmentPurged", v: 1, attachment_id: id, project_id: "p", reason });

const newAttachment: NewAttachment = {
  attachmentId: "new",
  projectId: "p",
  teamId: "t",
  appId: "app",
  eventClientId: "e",
  userId: "alice",
  originalFilename: "log.txt",
  contentType: "text/plain; charset=utf-8",
  sizeBytes: 100,
  sha256: SHA,
  isDev: false,
  expiresAt: EXPIRES_AT,
  quotaBytes: 300,
  userQuotaBytes: 200,
};
const reserve = (fields: Partial<NewAttachment> = {}): AttachmentCommand => ({ type: "ReserveAttachment", ...newAttachment, ...fields });
const upload = (fields: Partial<Extract<AttachmentCommand, { type: "UploadAttachment" }>> = {}): AttachmentCommand => ({
  type: "UploadAttachment",
  attachmentId: "a",
  projectId: "p",
  appId: "app",
  storageKey: "p/a/u1",
  bytes: 100,
  sha256: SHA,
  uploadedAt: RESERVED_AT,
  ...fields,
});
const purge = (reason: Fact<"AttachmentPurged">["reason"], now: string): AttachmentCommand => ({ type: "PurgeAttachment", attachmentId: "a", projectId: "p", reason, now });
const attachments = given(attachmentsDecider);

describe("reserving", () => {
  it("reserves within both quotas", () => {
    attachments(reserved("a")).when(reserve()).then(reserved("new", { original_filename: "log.txt", content_type: "text/plain; charset=utf-8" }));
  });

  it("refuses past the project quota with the quota, the usage and the request", () => {
    const error = attachments(reserved("a", { user_id: "bob", size_bytes: 250 })).when(reserve()).thenFails("too_large");
    expect(error.extra).toEqual({ code: "quota_exhausted", quota_bytes: 300, used_bytes: 250, requested_bytes: 100 });
  });

  it("refuses past the user quota, counting only that user's files", () => {
    const error = attachments(reserved("a", { size_bytes: 150 }), reserved("b", { user_id: "bob" }))
      .when(reserve({ sizeBytes: 60, quotaBytes: 1_000 }))
      .thenFails("too_large");
    expect(error.extra).toEqual({ code: "user_quota_exhausted", quota_bytes: 200, used_bytes: 150, requested_bytes: 60 });
    attachments(reserved("a", { size_bytes: 150 })).when(reserve({ userId: null, sizeBytes: 60 })).then(reserved("new", { user_id: null, size_bytes: 60, original_filename: "log.txt", content_type: "text/plain; charset=utf-8" }));
  });

  it("answers the project quota first when both are exhausted", () => {
    expect(attachments(reserved("a", { size_bytes: 300 })).when(reserve()).thenFails("too_large").extra.code).toBe("quota_exhausted");
  });

  it("frees the quota of deleted and purged reservations", () => {
    attachments(reserved("a", { size_bytes: 200 }), deleted("a")).when(reserve({ sizeBytes: 200 })).then(reserved("new", { size_bytes: 200, original_filename: "log.txt", content_type: "text/plain; charset=utf-8" }));
    attachments(reserved("a", { size_bytes: 200 }), purged("a", "reservation_expired")).when(reserve({ sizeBytes: 200 })).then(
      reserved("new", { size_bytes: 200, original_filename: "log.txt", content_type: "text/plain; charset=utf-8" }),
    );
  });

  it("refuses executable and script content types whatever their case and parameters", () => {
    attachments().when(reserve({ contentType: "Application/X-MSDownload" })).thenFails("unsupported_media_type");
    attachments().when(reserve({ contentType: "text/javascript; charset=utf-8" })).thenFails("unsupported_media_type");
    expect(isRefusedContentType("image/png")).toBe(false);
    expect(isRefusedContentType(" TEXT/HTML ")).toBe(true);
  });
});

describe("uploading", () => {
  it("records the upload of a matching body", () => {
    attachments(reserved("a")).when(upload()).then({ type: "AttachmentUploaded", v: 1, attachment_id: "a", project_id: "p", storage_key: "p/a/u1", uploaded_at: RESERVED_AT });
  });

  it("refuses a second upload as already_uploaded", () => {
    expect(attachments(reserved("a"), uploaded("a")).when(upload({ storageKey: "p/a/u2" })).thenFails("conflict").message).toBe("already_uploaded");
  });

  it("refuses deleted (gone), unknown, other apps' (not found) and expired reservations", () => {
    attachments(reserved("a"), deleted("a")).when(upload()).thenFails("gone");
    attachments(reserved("a"), purged("a", "reservation_expired")).when(upload()).thenFails("not_found");
    attachments(reserved("a")).when(upload({ appId: "other" })).thenFails("not_found");
    attachments(reserved("a")).when(upload({ uploadedAt: "2026-11-26T12:00:00.001Z" })).thenFails("gone");
  });

  it("refuses a body whose length or hash differ from the reservation", () => {
    attachments(reserved("a")).when(upload({ bytes: 99 })).thenFails("invalid");
    attachments(reserved("a")).when(upload({ sha256: "b".repeat(64) })).thenFails("invalid");
  });
});

describe("deleting and purging", () => {
  it("soft-deletes once", () => {
    attachments(reserved("a"), uploaded("a")).when({ type: "DeleteAttachment", attachmentId: "a", projectId: "p", deletedAt: "2026-11-25T13:00:00.000Z" }).then(deleted("a"));
    attachments(reserved("a"), deleted("a")).when({ type: "DeleteAttachment", attachmentId: "a", projectId: "p", deletedAt: RESERVED_AT }).thenFails("not_found");
  });

  it("purges a deleted attachment only once the grace period has passed", () => {
    attachments(reserved("a"), uploaded("a"), deleted("a")).when(purge("deleted_grace_elapsed", "2026-12-02T13:00:00.000Z")).then(purged("a", "deleted_grace_elapsed"));
    attachments(reserved("a"), uploaded("a"), deleted("a")).when(purge("deleted_grace_elapsed", "2026-12-02T12:59:59.999Z")).thenFails("conflict");
    attachments(reserved("a"), uploaded("a")).when(purge("deleted_grace_elapsed", "2027-01-01T00:00:00.000Z")).thenFails("conflict");
  });

  it("purges an expired reservation, but not one uploaded meanwhile", () => {
    attachments(reserved("a")).when(purge("reservation_expired", EXPIRES_AT)).then(purged("a", "reservation_expired"));
    attachments(reserved("a")).when(purge("reservation_expired", RESERVED_AT)).thenFails("conflict");
    attachments(reserved("a"), uploaded("a")).when(purge("reservation_expired", "2027-01-01T00:00:00.000Z")).thenFails("conflict");
    attachments(reserved("a"), purged("a", "reservation_expired")).when(purge("reservation_expired", "2027-01-01T00:00:00.000Z")).thenFails("not_found");
  });
});
