import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { notFound, unauthorized } from "../../../domain/shared/errors.ts";
import { downloadableAttachment } from "../../../projections/attachments/queries.ts";
import { attachmentDisposition } from "../attachments/content-disposition.ts";
import { PUBLIC } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { errorBody, TAGS } from "../schemas/common.ts";

/** The token is checked by the handler: a missing one is 401 like a bad one, not a 400. */
const downloadQuery = z.object({ t: z.string().max(4096).optional().describe("The signed token of a `download_url`") });

const header = (description: string) => ({ type: "string", description });

/** A binary answer, documented beside the JSON ones (its bytes are streamed, never serialized). */
const fileResponse = {
  description: "The file's bytes, or no body with `X-Accel-Redirect` when an internal redirect is configured",
  headers: {
    "content-type": header("The content type the file was reserved with"),
    "content-length": header("The file's size (absent with X-Accel-Redirect: the proxy sets it)"),
    "content-disposition": header('`attachment; filename="…"`, plus `filename*` for a name that is not plain ASCII'),
    "x-content-type-options": header("`nosniff`"),
    "cache-control": header("`private, no-store`"),
    "x-accel-redirect": header("Only with ATTACHMENTS_INTERNAL_REDIRECT and the filesystem store: where the proxy finds the file"),
  },
  content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
};

/** GET /v1/attachments/download (register with prefix /v1/attachments). */
export function attachmentDownloadRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/download",
      {
        // A HEAD would open the object and read it whole only to discard it.
        exposeHeadRoute: false,
        schema: {
          summary: "Download an attachment's bytes",
          description:
            "The URL comes from `download_url` of `GET /v1/attachments/:id`; its token is the credential, valid 60 seconds. The file is always " +
            "sent as a download (`Content-Disposition: attachment`, `nosniff`), never to be shown in the browser.",
          tags: [TAGS.attachments],
          querystring: downloadQuery,
          response: {
            200: fileResponse,
            401: errorBody.describe("Missing, invalid or expired token"),
            404: errorBody.describe("Deleted, purged or not uploaded"),
          },
        },
        config: { access: PUBLIC },
      },
      async (request, reply) => {
        const token = request.query.t;
        const attachmentId = token === undefined || token === "" ? null : await deps.downloadTokens.verify(token);
        if (attachmentId === null) throw unauthorized("invalid or expired download token");
        const attachment = await downloadableAttachment(deps.pool, attachmentId);
        if (!attachment) throw notFound("attachment");
        const headers = {
          "content-type": attachment.content_type,
          "content-disposition": attachmentDisposition(attachment.original_filename),
          "x-content-type-options": "nosniff",
          "cache-control": "private, no-store",
        };
        const redirect = deps.config.attachmentsInternalRedirect;
        if (redirect !== undefined && deps.attachments.driver === "filesystem") {
          // The proxy (nginx) serves the file from its internal location: docs/operations.md.
          return reply.headers({ ...headers, "x-accel-redirect": `${redirect}${attachment.storage_key}` }).send();
        }
        const object = await deps.attachments.get(attachment.storage_key);
        if (!object) throw notFound("attachment");
        return reply.headers({ ...headers, "content-length": object.bytes }).send(object.body);
      },
    );
  };
}
