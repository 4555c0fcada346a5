import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../api/client.ts";
import type { Status } from "./status.ts";

export type DataMode = "production" | "development" | "all";

/** What the board shows: the team's issues, or one project's, narrowed to an app and a data mode. */
export type BoardScope = { teamId: string; projectId: string | undefined; appId: string | undefined; dataMode: DataMode };

/** A column's page: enough to fill a screen, more on demand. */
const COLUMN_PAGE = 20;

/** Every issue query's key starts here, so one invalidation after a change refreshes board and detail alike. */
export const ISSUES_KEY = "issues";

const scopeQuery = ({ teamId, projectId, appId, dataMode }: BoardScope) => ({ team_id: teamId, project_id: projectId, app_id: appId, data_mode: dataMode });

/** The per-status totals: one grouped count for the whole scope, never summed from pages. */
export function useIssueCounts(scope: BoardScope) {
  return useQuery({
    queryKey: [ISSUES_KEY, "count", scope],
    queryFn: () => unwrap(api.GET("/v1/issues/count", { params: { query: scopeQuery(scope) } })),
  });
}

/** One column: the scope's issues of one status, newest last seen first, paged by the API's cursor. */
export function useIssueColumn(scope: BoardScope, status: Status) {
  return useInfiniteQuery({
    queryKey: [ISSUES_KEY, "column", scope, status],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/issues", { params: { query: { ...scopeQuery(scope), status, cursor: pageParam, limit: COLUMN_PAGE } } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.has_more && last.cursor !== null ? last.cursor : undefined),
  });
}

