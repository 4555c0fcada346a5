import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { notFound } from "../../../domain/shared/errors.ts";
import { commentsOf, listFeedback, visibleFeedback } from "../../../projections/feedback/queries.ts";
import { runFeedbackCommand } from "../../commands/feedback-command.ts";
import { actorOf, team } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleFeedback, DELETE, READ, WRITE } from "../feedback/access.ts";
import { page, parseCursor } from "../listing.ts";
import { accessibleProject } from "../resource-access.ts";
import { deletedBody, projectParams, TAGS } from "../schemas/common.ts";
import { exampleComment, exampleFeedback, feedbackBody, feedbackDetailBody, feedbackPageBody, feedbackParams, listQuery, statusBody } from "../schemas/feedback.ts";

const tags = [TAGS.feedback];

/** GET /, GET /:id, PATCH /:id and DELETE /:id (register with prefix /v1/projects/:projectId/feedback). */
export function feedbackRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "List a project's feedback",
          description: "Newest first; deleted feedback is left out. `data_mode` defaults to production (is_dev false).",
          tags,
          params: projectParams,
          querystring: listQuery,
          response: { 200: feedbackPageBody },
          examples: { 200: { feedback: [exampleFeedback], cursor: null, has_more: false } },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const { query } = request;
        const project = await accessibleProject(deps, request.caller, request.params.projectId, READ);
        const cursor = query.cursor === undefined ? undefined : parseCursor(query.cursor);
        const rows = await listFeedback(
          deps.pool,
          { projectId: project.id, status: query.status, appId: query.app_id, dataMode: query.data_mode },
          { cursor: cursor && { createdAt: cursor.timestamp, id: cursor.id }, limit: query.limit },
        );
        // The creation time, plus the id when the next row shares it, so no row is skipped.
        const result = page(rows, query.limit, (last) => (rows[query.limit]!.created_at === last.created_at ? `${last.created_at}|${last.id}` : last.created_at));
        return { feedback: [...result.items], cursor: result.cursor, has_more: result.has_more };
      },
    );

    app.get(
      "/:id",
      {
        schema: {
          summary: "Get feedback with its comments",
          tags,
          params: feedbackParams,
          response: { 200: feedbackDetailBody },
          examples: { 200: { ...exampleFeedback, comments: [exampleComment] } },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const { projectId, id } = request.params;
        const { feedback } = await accessibleFeedback(deps, request.caller, projectId, id, READ);
        return { ...feedback, comments: [...(await commentsOf(deps.pool, feedback.id))] };
      },
    );

    app.patch(
      "/:id",
      {
        schema: {
          summary: "Change the status of feedback",
          description: "Any move between new, in_review, addressed and dismissed; the same status changes nothing. Audited.",
          tags,
          params: feedbackParams,
          body: statusBody,
          response: { 200: feedbackBody },
          examples: { body: { status: "addressed" }, 200: { ...exampleFeedback, status: "addressed" } },
        },
        config: { access: team(WRITE) },
      },
      async (request) => {
        const { projectId, id } = request.params;
        await accessibleFeedback(deps, request.caller, projectId, id, WRITE);
        await runFeedbackCommand(deps, { type: "ChangeFeedbackStatus", feedbackId: id, status: request.body.status }, actorOf(request.caller));
        const changed = await visibleFeedback(deps.pool, projectId, id);
        if (!changed) throw notFound("feedback");
        return changed;
      },
    );

    app.delete(
      "/:id",
      {
        schema: {
          summary: "Delete feedback",
          description: "Soft: hidden from every read at once. Team admins and owners, or agent keys with feedback:write. Audited.",
          tags,
          params: feedbackParams,
          response: { 200: deletedBody },
          examples: { 200: { deleted: true } },
        },
        config: { access: team(DELETE) },
      },
      async (request) => {
        const { projectId, id } = request.params;
        await accessibleFeedback(deps, request.caller, projectId, id, DELETE);
        await runFeedbackCommand(deps, { type: "DeleteFeedback", feedbackId: id, at: new Date().toISOString() }, actorOf(request.caller));
        return { deleted: true as const };
      },
    );
  };
}
