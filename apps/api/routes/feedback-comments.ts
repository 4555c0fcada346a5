import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { notFound } from "../../../domain/shared/errors.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { commentsOf, visibleComment } from "../../../projections/feedback/queries.ts";
import { runFeedbackCommand } from "../../commands/feedback-command.ts";
import { actorOf, team } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleFeedback, authorOf, feedbackActorOf, READ, WRITE } from "../feedback/access.ts";
import { deletedBody, TAGS } from "../schemas/common.ts";
import { commentBody, commentInput, commentParams, exampleComment, feedbackParams } from "../schemas/feedback.ts";

const tags = [TAGS.feedback];

/** GET /, POST /, PATCH /:commentId and DELETE /:commentId (register with prefix /v1/projects/:projectId/feedback/:id/comments). */
export function feedbackCommentRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  /** The comment as answered after a change; 404 should it have gone meanwhile. */
  async function commentNow(feedbackId: string, commentId: string) {
    const comment = await visibleComment(deps.pool, feedbackId, commentId);
    if (!comment) throw notFound("comment");
    return comment;
  }

  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "List the comments on feedback",
          description: "Not deleted, oldest first.",
          tags,
          params: feedbackParams,
          response: { 200: z.object({ comments: z.array(commentBody) }) },
          examples: { 200: { comments: [exampleComment] } },
        },
        config: { access: team(READ) },
      },
      async (request) => {
        const { projectId, id } = request.params;
        const { feedback } = await accessibleFeedback(deps, request.caller, projectId, id, READ);
        return { comments: [...(await commentsOf(deps.pool, feedback.id))] };
      },
    );

    app.post(
      "/",
      {
        schema: {
          summary: "Comment on feedback",
          description: "The author is the caller: the signed-in user or the agent key. Audited.",
          tags,
          params: feedbackParams,
          body: commentInput,
          response: { 201: commentBody },
          examples: { body: { body: exampleComment.body }, 201: exampleComment },
        },
        config: { access: team(WRITE) },
      },
      async (request, reply) => {
        const { projectId, id } = request.params;
        const { caller } = request;
        await accessibleFeedback(deps, caller, projectId, id, WRITE);
        const commentId = newId();
        const command = { type: "AddFeedbackComment" as const, feedbackId: id, commentId, author: await authorOf(deps, caller), body: request.body.body, at: new Date().toISOString() };
        await runFeedbackCommand(deps, command, actorOf(caller));
        return reply.code(201).send(await commentNow(id, commentId));
      },
    );

    app.patch(
      "/:commentId",
      {
        schema: {
          summary: "Edit a comment",
          description: "Only its author (the same user or agent key); anyone else gets 403. Audited.",
          tags,
          params: commentParams,
          body: commentInput,
          response: { 200: commentBody },
          examples: { body: { body: "Fixed in 2.4.1." }, 200: { ...exampleComment, body: "Fixed in 2.4.1.", edited_at: "2026-11-25T13:00:00.000Z" } },
        },
        config: { access: team(WRITE) },
      },
      async (request) => {
        const { projectId, id, commentId } = request.params;
        const { caller } = request;
        const { teamId } = await accessibleFeedback(deps, caller, projectId, id, WRITE);
        const actor = await feedbackActorOf(deps, caller, teamId);
        await runFeedbackCommand(deps, { type: "EditFeedbackComment", feedbackId: id, commentId, actor, body: request.body.body, at: new Date().toISOString() }, actorOf(caller));
        return commentNow(id, commentId);
      },
    );

    app.delete(
      "/:commentId",
      {
        schema: {
          summary: "Delete a comment",
          description: "Soft. Its author, or a team admin or owner; anyone else gets 403. Audited.",
          tags,
          params: commentParams,
          response: { 200: deletedBody },
          examples: { 200: { deleted: true } },
        },
        config: { access: team(WRITE) },
      },
      async (request) => {
        const { projectId, id, commentId } = request.params;
        const { caller } = request;
        const { teamId } = await accessibleFeedback(deps, caller, projectId, id, WRITE);
        const actor = await feedbackActorOf(deps, caller, teamId);
        await runFeedbackCommand(deps, { type: "DeleteFeedbackComment", feedbackId: id, commentId, actor, at: new Date().toISOString() }, actorOf(caller));
        return { deleted: true as const };
      },
    );
  };
}
