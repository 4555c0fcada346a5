import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { CommentActor } from "../../../domain/issues/decider.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { atLeast } from "../../../domain/shared/roles.ts";
import { memberRole } from "../../../projections/directory/queries.ts";
import { commentById, commentsOf } from "../../../projections/issues/queries.ts";
import { runIssueCommand } from "../../commands/issue-command.ts";
import { actorOf, team } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { authorOf } from "../feedback/access.ts";
import { deletedBody, errorBody, TAGS } from "../schemas/common.ts";
import { commentBody, commentInput, commentListBody, commentParams, exampleComment, issueParams } from "../schemas/issues.ts";
import { accessibleIssue, READ_ISSUES, WRITE_ISSUES } from "./issues.ts";

const tags = [TAGS.issues];

/** Who acts on a comment: a team admin or owner may delete anyone's; a key only its own. */
async function commentActorOf(deps: ApiDeps, caller: Principal, teamId: string): Promise<CommentActor> {
  if (caller.kind === "key") return { type: "api_key", id: caller.keyId, moderator: false };
  const role = await memberRole(deps.pool, teamId, caller.userId);
  return { type: "user", id: caller.userId, moderator: role !== null && atLeast(role, "admin") };
}

/** An issue's comments (register with prefix /v1/projects/:projectId/issues/:issueId/comments). */
export function issueCommentRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  async function answer(issueId: string, commentId: string) {
    const comment = await commentById(deps.pool, issueId, commentId);
    if (!comment) throw notFound("comment");
    return comment;
  }

  return async (app) => {
    app.get(
      "/",
      {
        schema: { summary: "List an issue's comments", description: "Oldest first; deleted ones are left out.", tags, params: issueParams, response: { 200: commentListBody }, examples: { 200: { comments: [exampleComment] } } },
        config: { access: team(READ_ISSUES) },
      },
      async (request) => {
        const issue = await accessibleIssue(deps, request.caller, request.params.projectId, request.params.issueId, READ_ISSUES);
        return { comments: [...(await commentsOf(deps.pool, issue.id))] };
      },
    );

    app.post(
      "/",
      {
        schema: {
          summary: "Comment on an issue",
          description: "The author is the caller: a user (their name) or an agent key (its name). Audited.",
          tags,
          params: issueParams,
          body: commentInput,
          response: { 201: commentBody, 400: errorBody, 404: errorBody },
          examples: { body: { body: "Fixed in **1.4.1**." }, 201: exampleComment },
        },
        config: { access: team(WRITE_ISSUES) },
      },
      async (request, reply) => {
        const { projectId, issueId } = request.params;
        const { caller } = request;
        await accessibleIssue(deps, caller, projectId, issueId, WRITE_ISSUES);
        const commentId = newId();
        const author = await authorOf(deps, caller);
        await runIssueCommand(deps, { type: "AddIssueComment", projectId, issueId, commentId, author, body: request.body.body, now: new Date().toISOString() }, actorOf(caller));
        return reply.code(201).send(await answer(issueId, commentId));
      },
    );

    app.patch(
      "/:commentId",
      {
        schema: {
          summary: "Edit a comment",
          description: "Only its author (the same user or agent key) may edit it; anyone else 403. Audited.",
          tags,
          params: commentParams,
          body: commentInput,
          response: { 200: commentBody, 400: errorBody, 403: errorBody, 404: errorBody },
          examples: { body: { body: "Fixed in **1.4.2**." }, 200: { ...exampleComment, body: "Fixed in **1.4.2**." } },
        },
        config: { access: team(WRITE_ISSUES) },
      },
      async (request) => {
        const { projectId, issueId, commentId } = request.params;
        const { caller } = request;
        const issue = await accessibleIssue(deps, caller, projectId, issueId, WRITE_ISSUES);
        const actor = await commentActorOf(deps, caller, issue.team_id);
        await runIssueCommand(deps, { type: "EditIssueComment", projectId, issueId, commentId, actor, body: request.body.body, now: new Date().toISOString() }, actorOf(caller));
        return answer(issueId, commentId);
      },
    );

    app.delete(
      "/:commentId",
      {
        schema: {
          summary: "Delete a comment",
          description: "Soft deletion, by its author or a team admin or owner; anyone else 403. Audited.",
          tags,
          params: commentParams,
          response: { 200: deletedBody, 403: errorBody, 404: errorBody },
          examples: { 200: { deleted: true } },
        },
        config: { access: team(WRITE_ISSUES) },
      },
      async (request) => {
        const { projectId, issueId, commentId } = request.params;
        const { caller } = request;
        const issue = await accessibleIssue(deps, caller, projectId, issueId, WRITE_ISSUES);
        const actor = await commentActorOf(deps, caller, issue.team_id);
        await runIssueCommand(deps, { type: "DeleteIssueComment", projectId, issueId, commentId, actor, now: new Date().toISOString() }, actorOf(caller));
        return { deleted: true as const };
      },
    );
  };
}
