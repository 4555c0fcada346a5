import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { notFound } from "../../../domain/shared/errors.ts";
import { timeOfId } from "../../../domain/shared/ids.ts";
import { projectUsage, userUsage } from "../../../projections/attachments/decision-state.ts";
import { listAttachments, visibleAttachment, type AttachmentDetail, type AttachmentFilter } from "../../../projections/attachments/queries.ts";
import { toProject } from "../../../projections/directory/catalog-queries.ts";
import { eventById } from "../../../projections/events/queries.ts";
import { runAttachmentCommand } from "../../commands/attachment-command.ts";
import { actorOf, authorize, team, visibleTeams, type Rule } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { cursorParam, limitParam, page, parseCursor } from "../listing.ts";
import { accessibleProject } from "../resource-access.ts";
import { attachmentDetailBody, attachmentPageBody, exampleAttachment, okBody, usageBody } from "../schemas/attachments.ts";
import { idParams, projectParams, TAGS } from "../schemas/common.ts";
import { chars, uuid } from "../validation.ts";

/** Any member reads attachments; keys need events:read. */
const READ: Rule = { permission: "events:read", role: "member" };
/** Any member deletes; keys need events:write (client and import keys, for their own app's files). */
const DELETE: Rule = { permission: "events:write", role: "member" };
const tags = [TAGS.attachments];

const listQuery = z.object({
  event_id: uuid.optional(),
  event_client_id: uuid.optional(),
  issue_id: uuid.optional(),
  project_id: uuid.optional(),
  cursor: cursorParam.describe("The `cursor` of the previous page: `<created_at>`, or `<created_at>|<id>` inside a run of equal times"),
  limit: limitParam(200, 50),
});

const emptyPage = { attachments: [], cursor: null, has_more: false };

/** The viewer an event lookup runs as: an agent key sees its team, a user every team they belong to. */
const viewerOf = (caller: Principal) => (caller.kind === "user" ? { kind: "member" as const, userId: caller.userId } : { kind: "team" as const, teamId: caller.teamId });

/** The attachment as answered: without where its bytes live or its team. */
const present = ({ team_id: _team, storage_key: _key, ...attachment }: AttachmentDetail) => attachment;

/** GET /v1/attachments, /:id and DELETE /:id (register with prefix /v1/attachments). */
export function attachmentRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  /** A visible attachment the caller may act on under `rule`; 404 for missing, deleted and foreign ones alike. */
  async function accessibleAttachment(caller: Principal, attachmentId: string, rule: Rule): Promise<AttachmentDetail> {
    const attachment = await visibleAttachment(deps.pool, attachmentId);
    if (!attachment) throw notFound("attachment");
    await authorize(deps, caller, attachment.team_id, rule, "attachment");
    return attachment;
  }

  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "List attachments",
          description: "Newest created first; deleted ones are left out. Filters narrow the projects the caller may read; `issue_id` matches the attachments of the issue's occurrence events.",
          tags,
          querystring: listQuery,
          response: { 200: attachmentPageBody },
          examples: { 200: { attachments: [exampleAttachment], cursor: null, has_more: false } },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const { query, caller } = request;
        const filter: AttachmentFilter = { teamIds: await visibleTeams(deps, caller, READ), projectId: query.project_id, eventClientId: query.event_client_id, issueId: query.issue_id };
        if (filter.teamIds.length === 0) return emptyPage;
        if (query.event_id !== undefined) {
          // An event is linked by its (app, client_event_id); an event the caller cannot see has none.
          const ms = timeOfId(query.event_id);
          const event = ms === null ? null : await eventById(deps.pool, viewerOf(caller), query.event_id, new Date(ms).toISOString());
          if (!event || event.client_event_id === null) return emptyPage;
          filter.event = { appId: event.app_id, clientEventId: event.client_event_id };
        }
        const cursor = query.cursor === undefined ? undefined : parseCursor(query.cursor);
        const rows = await listAttachments(deps.pool, filter, { cursor: cursor && { createdAt: cursor.timestamp, id: cursor.id }, limit: query.limit });
        // The creation time, plus the id when the next row shares it, so no row is skipped.
        const result = page(rows, query.limit, (last) => (rows[query.limit]!.created_at === last.created_at ? `${last.created_at}|${last.id}` : last.created_at));
        return { attachments: [...result.items], cursor: result.cursor, has_more: result.has_more };
      },
    );

    app.get(
      "/:id",
      {
        schema: {
          summary: "Get an attachment with a download URL",
          description: "`download_url` appears once the bytes are uploaded; its URL works without credentials for 60 seconds.",
          tags,
          params: idParams,
          response: { 200: attachmentDetailBody },
          examples: {
            200: {
              ...exampleAttachment,
              download_url: {
                url: "https://api.example.com/v1/attachments/download?t=eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0dGFjaG1lbnQtZG93bmxvYWQrand0In0...",
                expires_at: "2026-11-25T12:01:00.000Z",
                original_filename: exampleAttachment.original_filename,
                content_type: exampleAttachment.content_type,
                size_bytes: exampleAttachment.size_bytes,
              },
            },
          },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const attachment = present(await accessibleAttachment(request.caller, request.params.id, READ));
        if (attachment.uploaded_at === null) return attachment;
        const signed = await deps.downloadTokens.sign(attachment.id);
        const url = `${deps.config.publicBaseUrl}/v1/attachments/download?t=${encodeURIComponent(signed.token)}`;
        const { original_filename, content_type, size_bytes } = attachment;
        return { ...attachment, download_url: { url, expires_at: signed.expiresAt, original_filename, content_type, size_bytes } };
      },
    );

    app.delete(
      "/:id",
      {
        schema: {
          summary: "Delete an attachment",
          description: "Hidden at once; the bytes are removed by the daily cleanup after 7 days. A client or import key deletes only its own app's attachments.",
          tags,
          params: idParams,
          response: { 200: okBody },
          examples: { 200: { ok: true } },
        },
        config: { access: team(DELETE) },
      },
      async (request) => {
        const { caller } = request;
        const attachment = await accessibleAttachment(caller, request.params.id, DELETE);
        // An app's key ships inside the app: it reaches that app's files, not the team's.
        if (caller.kind === "key" && caller.appId !== null && caller.appId !== attachment.app_id) throw notFound("attachment");
        await runAttachmentCommand(
          deps,
          { type: "DeleteAttachment", attachmentId: attachment.id, projectId: attachment.project_id, deletedAt: new Date().toISOString() },
          actorOf(caller),
        );
        return { ok: true as const };
      },
    );
  };
}

/** GET /v1/projects/:projectId/attachment-usage (register with prefix /v1/projects). */
export function attachmentUsageRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/:projectId/attachment-usage",
      {
        schema: {
          summary: "A project's attachment usage and quotas",
          description:
            "What the quota check counts: attachments not deleted, reservations not yet uploaded at their declared size. With `user_id`, also " +
            "that user's usage (an anonymous id that was claimed counts as its claimer). Quotas are the effective values.",
          tags,
          params: projectParams,
          querystring: z.object({ user_id: chars(255).optional() }),
          response: { 200: usageBody },
          examples: { 200: { project_id: exampleAttachment.project_id, used_bytes: 482_113, quota_bytes: 5_368_709_120, user_quota_bytes: 262_144_000, file_count: 1 } },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const project = toProject(await accessibleProject(deps, request.caller, request.params.projectId, READ));
        const usage = await projectUsage(deps.pool, project.id);
        const answer = {
          project_id: project.id,
          used_bytes: usage.bytes,
          quota_bytes: project.effective_attachment_project_quota_bytes,
          user_quota_bytes: project.effective_attachment_user_quota_bytes,
          file_count: usage.files,
        };
        const userId = request.query.user_id;
        if (userId === undefined) return answer;
        const user = await userUsage(deps.pool, project.id, userId);
        return { ...answer, user_id: userId, user_used_bytes: user.bytes, user_file_count: user.files };
      },
    );
  };
}
