import type { IncomingHttpHeaders } from "node:http";
import { conflict, DomainError, gone, notFound, tooLarge, unsupportedEncoding } from "../../../domain/shared/errors.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { attachmentForUpload, type UploadTarget } from "../../../projections/attachments/queries.ts";
import { runAttachmentCommand } from "../../commands/attachment-command.ts";
import { ObjectTooLargeError } from "../../storage/attachment-store.ts";
import type { ApiDeps } from "../deps.ts";
import type { IngestCaller } from "../ingest/caller.ts";

/** An upload as it arrived: the body is the unread request stream (the route's content-type parser hands it over). */
export type Upload = { attachmentId: string; body: unknown; headers: IncomingHttpHeaders };

/** Refusals of the upload decision: nothing was recorded, so the object stored for it goes. */
const REFUSED = new Set(["invalid", "not_found", "gone", "conflict"]);

/**
 * What can be refused before a byte is read, from the read model: the same answers the decider
 * gives (it checks again after the body is stored), without storing a body only to drop it.
 */
function refuseEarly(target: UploadTarget | null, caller: IngestCaller, headers: IncomingHttpHeaders, now: number): UploadTarget {
  if (!target || target.app_id !== caller.app.id) throw notFound("attachment");
  if (target.deleted) throw gone("the attachment was deleted");
  if (target.uploaded) throw conflict("already_uploaded");
  if (Date.parse(target.expires_at) < now) throw gone("the reservation expired; reserve the attachment again");
  const encoding = headers["content-encoding"]?.trim().toLowerCase();
  if (encoding && encoding !== "identity") throw unsupportedEncoding("send the file's bytes as they are, without a content encoding");
  const length = Number(headers["content-length"]);
  if (Number.isFinite(length) && length > target.size_bytes) throw tooLarge(`the body is larger than the declared size_bytes (${target.size_bytes})`);
  return target;
}

/**
 * PUT /v1/ingest/attachment/:id: streams the body into the store under a key of its own
 * (`<project>/<attachment>/<upload id>`, so two uploads at once never share an object), reading
 * at most the declared size plus one byte; the store measures length and SHA-256 on the way. The
 * AttachmentUploaded decision then checks both against the reservation, on the project's subject,
 * so of two uploads at once exactly one wins. A refused upload's object is deleted; an upload
 * whose outcome is unknown (the log or the read model unavailable) keeps it, and the cleanup
 * removes it if no fact ever named it.
 * @throws DomainError not_found, gone, conflict `already_uploaded`, too_large, invalid, unsupported_encoding
 */
export async function receiveUpload(deps: ApiDeps, upload: Upload, caller: IngestCaller): Promise<void> {
  const target = refuseEarly(await attachmentForUpload(deps.pool, upload.attachmentId), caller, upload.headers, Date.now());
  const key = `${target.project_id}/${target.id}/${newId()}`;
  let stored;
  try {
    stored = await deps.attachments.put(key, upload.body as NodeJS.ReadableStream, {
      maxBytes: target.size_bytes,
      declaredBytes: target.size_bytes,
      contentType: target.content_type,
    });
  } catch (error) {
    if (error instanceof ObjectTooLargeError) throw tooLarge(`the body is larger than the declared size_bytes (${target.size_bytes})`);
    throw error;
  }
  try {
    await runAttachmentCommand(
      deps,
      {
        type: "UploadAttachment",
        attachmentId: target.id,
        projectId: target.project_id,
        appId: caller.app.id,
        storageKey: key,
        bytes: stored.bytes,
        sha256: stored.sha256,
        uploadedAt: new Date().toISOString(),
      },
      { type: "api_key", id: caller.keyId },
    );
  } catch (error) {
    if (error instanceof DomainError && REFUSED.has(error.code)) await deps.attachments.delete(key);
    throw error;
  }
}
