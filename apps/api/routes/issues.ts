import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { DataMode } from "../../../domain/analytics/window.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { attachmentsOfIssue, commentsOf, issueById, listIssues, occurrencesOf, type IssueRow } from "../../../projections/issues/queries.ts";
import { runIssueCommand } from "../../commands/issue-command.ts";
import { actorOf, team, type Rule } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { page, parseKeysetCursor } from "../listing.ts";
import { accessibleProject } from "../resource-access.ts";
import { errorBody, projectParams, TAGS } from "../schemas/common.ts";
import { detailQuery, exampleComment, exampleIssue, mergeBody, exampleOccurrence, issueBody, issueDetailBody, issuePageBody, issueParams, projectIssuesQuery, statusBody } from "../schemas/issues.ts";

export const READ_ISSUES: Rule = { permission: "issues:read", role: "member" };
export const WRITE_ISSUES: Rule = { permission: "issues:write", role: "member" };
/** The SPEC's issue attachments limit in the detail; more through `GET /v1/attachments?issue_id=`. */
const DETAIL_ATTACHMENTS = 100;

const tags = [TAGS.issues];

/** `is_dev` wins over `data_mode`; undefined means both. */
export function devFilter(isDev: "true" | "false" | undefined, dataMode: DataMode): boolean | undefined {
  if (isDev !== undefined) return isDev === "true";
  return dataMode === "all" ? undefined : dataMode === "development";
}

/** An issue as the project routes show it (the project name belongs to the cross-project list). */
export const toIssue = ({ project_name: _project, team_id: _team, ...issue }: IssueRow) => issue;

/** A project's issue the caller may act on under `rule`; 404 for missing and foreign ones alike. */
export async function accessibleIssue(deps: ApiDeps, caller: Principal, projectId: string, issueId: string, rule: Rule) {
  await accessibleProject(deps, caller, projectId, rule);
  const issue = await issueById(deps.pool, projectId, issueId);
  if (!issue) throw notFound("issue");
  return issue;
}

/** GET /, GET /:issueId and PATCH /:issueId (register with prefix /v1/projects/:projectId/issues). */
export function issueRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "List a project's issues",
          description: "Newest last seen first. `is_dev` takes precedence over `data_mode`, which defaults to all here.",
          tags,
          params: projectParams,
          querystring: projectIssuesQuery,
          response: { 200: issuePageBody },
          examples: { 200: { issues: [exampleIssue], cursor: null, has_more: false } },
        },
        config: { access: team(READ_ISSUES) },
      },
      async (request) => {
        const { query } = request;
        const project = await accessibleProject(deps, request.caller, request.params.projectId, READ_ISSUES);
        const cursor = parseKeysetCursor(query.cursor);
        const rows = await listIssues(
          deps.pool,
          { teamIds: [project.team_id], projectId: project.id, appId: query.app_id, status: query.status, isDev: devFilter(query.is_dev, query.data_mode) },
          { cursor: cursor && { lastSeenAt: cursor.timestamp, id: cursor.id }, limit: query.limit },
        );
        const result = page(rows, query.limit, (row) => `${row.last_seen_at ?? row.created_at}|${row.id}`);
        return { issues: result.items.map(toIssue), cursor: result.cursor, has_more: result.has_more };
      },
    );

    app.get(
      "/:issueId",
      {
        schema: {
          summary: "Get an issue with its occurrences, comments and attachments",
          description:
            "Occurrences newest first, paged by `occurrence_cursor`/`occurrence_limit`. Attachments: up to 100 of those sent with the issue's occurrence events, newest first; more through `GET /v1/attachments?issue_id=`.",
          tags,
          params: issueParams,
          querystring: detailQuery,
          response: { 200: issueDetailBody },
          examples: { 200: { ...exampleIssue, occurrences: [exampleOccurrence], occurrence_cursor: null, occurrence_has_more: false, comments: [exampleComment], attachments: [] } },
        },
        config: { access: team(READ_ISSUES) },
      },
      async (request) => {
        const { projectId, issueId } = request.params;
        const { query } = request;
        const issue = await accessibleIssue(deps, request.caller, projectId, issueId, READ_ISSUES);
        const cursor = parseKeysetCursor(query.occurrence_cursor);
        const rows = await occurrencesOf(deps.pool, issue.id, { cursor, limit: query.occurrence_limit });
        const occurrences = page(rows, query.occurrence_limit, (row) => `${row.timestamp}|${row.id}`);
        return {
          ...toIssue(issue),
          occurrences: [...occurrences.items],
          occurrence_cursor: occurrences.cursor,
          occurrence_has_more: occurrences.has_more,
          comments: [...(await commentsOf(deps.pool, issue.id))],
          attachments: [...(await attachmentsOfIssue(deps.pool, issue.id, DETAIL_ATTACHMENTS))],
        };
      },
    );

    app.patch(
      "/:issueId",
      {
        schema: {
          summary: "Change an issue's status",
          description:
            "Moves allowed by the SPEC's table only (others 400); `resolved` needs a non-empty `resolved_at_version`, a move to new clears it; " +
            "snoozing sets `snoozed_at`, leaving snoozed clears it. `regressed` is set by detection only. Audited.",
          tags,
          params: issueParams,
          body: statusBody,
          response: { 200: issueBody, 400: errorBody, 404: errorBody },
          examples: { body: { status: "resolved", resolved_at_version: "1.4.1" }, 200: { ...exampleIssue, status: "resolved", resolved_at_version: "1.4.1" } },
        },
        config: { access: team(WRITE_ISSUES) },
      },
      async (request) => {
        const { projectId, issueId } = request.params;
        const { body } = request;
        await accessibleIssue(deps, request.caller, projectId, issueId, WRITE_ISSUES);
        await runIssueCommand(
          deps,
          { type: "ChangeIssueStatus", projectId, issueId, to: body.status, resolvedAtVersion: body.resolved_at_version ?? null, now: new Date().toISOString() },
          actorOf(request.caller),
        );
        const issue = await issueById(deps.pool, projectId, issueId);
        if (!issue) throw notFound("issue");
        return toIssue(issue);
      },
    );

    app.post(
      "/:issueId/merge",
      {
        schema: {
          summary: "Merge another issue into this one",
          description:
            "Moves the source's fingerprints, occurrences (one per session: those of sessions this issue already has are dropped) and comments here, " +
            "then deletes the source. Both must be issues of this project; merging an issue into itself is 400. Answers the merged issue. Audited.",
          tags,
          params: issueParams,
          body: mergeBody,
          response: { 200: issueBody, 400: errorBody, 404: errorBody },
          examples: { body: { source_issue_id: "5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e" }, 200: exampleIssue },
        },
        config: { access: team(WRITE_ISSUES) },
      },
      async (request) => {
        const { projectId, issueId } = request.params;
        await accessibleIssue(deps, request.caller, projectId, issueId, WRITE_ISSUES);
        await runIssueCommand(
          deps,
          { type: "MergeIssues", projectId, targetIssueId: issueId, sourceIssueId: request.body.source_issue_id, now: new Date().toISOString() },
          actorOf(request.caller),
        );
        const issue = await issueById(deps.pool, projectId, issueId);
        if (!issue) throw notFound("issue");
        return toIssue(issue);
      },
    );
  };
}
