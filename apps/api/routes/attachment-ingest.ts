import type { FastifyPluginAsyncZod, ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { RESERVATION_TTL_MS } from "../../../domain/attachments/rules.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { activeProject, toProject } from "../../../projections/directory/catalog-queries.ts";
import { runAttachmentCommand } from "../../commands/attachment-command.ts";
import { receiveUpload } from "../attachments/upload.ts";
import { appKey } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { documentedOnly } from "../plugins/route-schemas.ts";
import { exampleReservation, quotaRefusal, reserveBody, reservedBody, uploadedBody } from "../schemas/attachments.ts";
import { errorBody, idParams, TAGS } from "../schemas/common.ts";

const tags = [TAGS.attachments];

/** The raw bytes of an upload: documented, never parsed (the handler streams them into the store). */
const uploadBody = documentedOnly(z.unknown().describe("The file's bytes, exactly `size_bytes` of them"));

/**
 * POST /v1/ingest/attachment and PUT /v1/ingest/attachment/:id (register with prefix /v1/ingest):
 * an SDK reserves a file for an event under the quotas, then uploads its bytes. Both take the
 * app's client key, resolved (and, as on ingest, a rate-limit token spent) before the body is read.
 */
export function attachmentIngestRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/attachment",
      {
        schema: {
          summary: "Reserve an attachment of an event",
          description:
            "Counts the declared size against the project's and the user's quotas at once (413 with `code` when one is exhausted) and " +
            "answers where to PUT the bytes, within 24 hours. The event may be sent before or after.",
          tags,
          body: reserveBody,
          response: { 201: reservedBody, 413: quotaRefusal, 415: errorBody.describe("An executable, script or web page content type") },
          examples: {
            body: exampleReservation,
            201: { attachment_id: "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d", upload_url: "https://api.example.com/v1/ingest/attachment/4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d", expires_at: "2026-11-26T12:00:01.020Z" },
            413: { error: "the user's attachment quota is exhausted", code: "user_quota_exhausted", quota_bytes: 262_144_000, used_bytes: 261_900_000, requested_bytes: 482_113 },
          },
        },
        config: { access: appKey("client") },
      },
      async (request, reply) => {
        const caller = request.appKey;
        const { body } = request;
        const project = await activeProject(deps.pool, caller.app.project_id);
        if (!project) throw notFound("project");
        const quotas = toProject(project);
        const attachmentId = newId();
        const expiresAt = new Date(Date.now() + RESERVATION_TTL_MS).toISOString();
        await runAttachmentCommand(
          deps,
          {
            type: "ReserveAttachment",
            attachmentId,
            projectId: project.id,
            teamId: caller.app.team_id,
            appId: caller.app.id,
            eventClientId: body.client_event_id,
            userId: body.user_id ?? null,
            originalFilename: body.original_filename,
            contentType: body.content_type,
            sizeBytes: body.size_bytes,
            sha256: body.sha256,
            isDev: body.is_dev,
            expiresAt,
            quotaBytes: quotas.effective_attachment_project_quota_bytes,
            userQuotaBytes: quotas.effective_attachment_user_quota_bytes,
          },
          { type: "api_key", id: caller.keyId },
        );
        const uploadUrl = `${deps.config.publicBaseUrl}/v1/ingest/attachment/${attachmentId}`;
        return reply.code(201).send({ attachment_id: attachmentId, upload_url: uploadUrl, expires_at: expiresAt });
      },
    );

    // The upload route reads its body as a stream: its own parser, in a context of its own.
    await app.register(async (plugin) => {
      const uploads = plugin.withTypeProvider<ZodTypeProvider>();
      uploads.removeAllContentTypeParsers();
      // No `parseAs`: Fastify hands the request stream over unread and applies no body limit; the
      // store reads at most the declared size plus one byte.
      uploads.addContentTypeParser("application/octet-stream", (_request, payload, done) => done(null, payload));
      uploads.put(
        "/attachment/:id",
        {
          schema: {
            summary: "Upload the bytes of a reserved attachment",
            description:
              "Send `Content-Type: application/octet-stream` and exactly `size_bytes` bytes whose SHA-256 is the declared one, with the client key " +
              "of the app that reserved it. 409 `already_uploaded` after a successful upload, 410 once deleted or expired, 413 beyond the " +
              "declared size, 400 when the body is shorter or its hash differs (nothing is kept).",
            tags,
            consumes: ["application/octet-stream"],
            params: idParams,
            body: uploadBody,
            response: {
              200: uploadedBody,
              409: errorBody.describe("`already_uploaded`"),
              410: errorBody.describe("The attachment was deleted, or its reservation expired"),
              413: errorBody.describe("The body is larger than the declared size"),
              415: errorBody.describe("Not application/octet-stream, or a content encoding"),
            },
            examples: { 200: { uploaded: true } },
          },
          config: { access: appKey("client") },
        },
        async (request, reply) => {
          try {
            await receiveUpload(deps, { attachmentId: request.params.id, body: request.body, headers: request.headers }, request.appKey);
          } catch (error) {
            // A refusal before the whole body was read: close the connection rather than read the rest.
            if (!request.raw.complete) void reply.header("connection", "close");
            throw error;
          }
          return { uploaded: true as const };
        },
      );
    });
  };
}
