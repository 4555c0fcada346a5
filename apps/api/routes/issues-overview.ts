import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { countIssues, listIssues } from "../../../projections/issues/queries.ts";
import { team, visibleTeams } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { page, parseKeysetCursor } from "../listing.ts";
import { TAGS } from "../schemas/common.ts";
import { countBody, countQuery, crossProjectPageBody, exampleIssue, issuesQuery } from "../schemas/issues.ts";
import { devFilter, READ_ISSUES } from "./issues.ts";

const tags = [TAGS.issues];

/** GET /v1/issues and /v1/issues/count (register with prefix /v1/issues): every project the caller can see. */
export function issueOverviewRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "List issues across projects",
          description: "Newest last seen first, with `project_name`. `data_mode` defaults to production; `is_dev` takes precedence. A team or project the caller cannot see gives an empty list.",
          tags,
          querystring: issuesQuery,
          response: { 200: crossProjectPageBody },
          examples: { 200: { issues: [{ ...exampleIssue, project_name: "Shop" }], cursor: null, has_more: false } },
        },
        config: { access: team(READ_ISSUES) },
      },
      async (request) => {
        const { query } = request;
        const cursor = parseKeysetCursor(query.cursor);
        const rows = await listIssues(
          deps.pool,
          {
            teamIds: await visibleTeams(deps, request.caller, READ_ISSUES, query.team_id),
            projectId: query.project_id,
            appId: query.app_id,
            status: query.status,
            isDev: devFilter(query.is_dev, query.data_mode),
          },
          { cursor: cursor && { lastSeenAt: cursor.timestamp, id: cursor.id }, limit: query.limit },
        );
        const result = page(rows, query.limit, (row) => `${row.last_seen_at ?? row.created_at}|${row.id}`);
        return { issues: result.items.map(({ team_id: _team, ...issue }) => issue), cursor: result.cursor, has_more: result.has_more };
      },
    );

    app.get(
      "/count",
      {
        schema: {
          summary: "Count issues per status",
          description: "One grouped count over every project the caller can see; `open` = new + in_progress + regressed. `data_mode` defaults to production.",
          tags,
          querystring: countQuery,
          response: { 200: countBody },
          examples: { 200: { new: 3, in_progress: 1, regressed: 1, resolved: 7, silenced: 0, snoozed: 2, open: 5 } },
        },
        config: { access: team(READ_ISSUES) },
      },
      async (request) => {
        const { query } = request;
        const counts = await countIssues(deps.pool, {
          teamIds: await visibleTeams(deps, request.caller, READ_ISSUES, query.team_id),
          projectId: query.project_id,
          appId: query.app_id,
          isDev: devFilter(undefined, query.data_mode),
        });
        return { ...counts, open: counts.new + counts.in_progress + counts.regressed };
      },
    );
  };
}
