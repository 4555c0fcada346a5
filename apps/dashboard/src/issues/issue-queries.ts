import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client.ts";
import { ISSUES_KEY } from "./board-queries.ts";
import type { IssueDetail, Move } from "./status.ts";

/** Occurrences per page of the detail. */
const OCCURRENCE_PAGE = 25;

const detailKey = (projectId: string, issueId: string) => [ISSUES_KEY, "detail", projectId, issueId] as const;

export const fetchDetail = (projectId: string, issueId: string, cursor?: string) =>
  unwrap(api.GET("/v1/projects/{projectId}/issues/{issueId}", { params: { path: { projectId, issueId }, query: { occurrence_cursor: cursor, occurrence_limit: OCCURRENCE_PAGE } } }));

/**
 * An issue with its occurrences a page at a time: the first page holds the issue's fields, comments
 * and attachments, later pages only add occurrences (`occurrence_cursor`).
 */
export function useIssueDetail(projectId: string | undefined, issueId: string) {
  return useInfiniteQuery({
    queryKey: detailKey(projectId ?? "", issueId),
    queryFn: ({ pageParam }) => fetchDetail(projectId ?? "", issueId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: IssueDetail) => (last.occurrence_has_more && last.occurrence_cursor !== null ? last.occurrence_cursor : undefined),
    enabled: projectId !== undefined,
  });
}

/** Seeds the detail with a first page fetched elsewhere (finding the issue's project), so it is not asked twice. */
export function useSeedDetail() {
  const client = useQueryClient();
  return (projectId: string, issueId: string, first: IssueDetail) =>
    client.setQueryData(detailKey(projectId, issueId), { pages: [first], pageParams: [undefined] });
}

/** After any change, the board's columns and counts are as stale as the detail. */
function useRefreshIssues() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: [ISSUES_KEY] });
}

export function useMoveIssue(projectId: string, issueId: string) {
  const refresh = useRefreshIssues();
  return useMutation({
    mutationFn: ({ to, version }: { to: Move; version?: string }) =>
      unwrap(api.PATCH("/v1/projects/{projectId}/issues/{issueId}", { params: { path: { projectId, issueId } }, body: { status: to, resolved_at_version: version } })),
    onSettled: refresh,
  });
}

export function useMergeIssue(projectId: string, issueId: string) {
  const refresh = useRefreshIssues();
  return useMutation({
    mutationFn: (sourceIssueId: string) =>
      unwrap(api.POST("/v1/projects/{projectId}/issues/{issueId}/merge", { params: { path: { projectId, issueId } }, body: { source_issue_id: sourceIssueId } })),
    onSuccess: refresh,
  });
}

export function useAddComment(projectId: string, issueId: string) {
  const refresh = useRefreshIssues();
  return useMutation({
    mutationFn: (body: string) => unwrap(api.POST("/v1/projects/{projectId}/issues/{issueId}/comments", { params: { path: { projectId, issueId } }, body: { body } })),
    onSuccess: refresh,
  });
}

export function useEditComment(projectId: string, issueId: string) {
  const refresh = useRefreshIssues();
  return useMutation({
    mutationFn: ({ commentId, body }: { commentId: string; body: string }) =>
      unwrap(api.PATCH("/v1/projects/{projectId}/issues/{issueId}/comments/{commentId}", { params: { path: { projectId, issueId, commentId } }, body: { body } })),
    onSuccess: refresh,
  });
}

export function useDeleteComment(projectId: string, issueId: string) {
  const refresh = useRefreshIssues();
  return useMutation({
    mutationFn: (commentId: string) =>
      unwrap(api.DELETE("/v1/projects/{projectId}/issues/{issueId}/comments/{commentId}", { params: { path: { projectId, issueId, commentId } } })),
    onSuccess: refresh,
  });
}

/** The project's other issues to merge from: every status, both data modes, the most recent first. */
export function useMergeCandidates(projectId: string, enabled: boolean) {
  return useQuery({
    queryKey: [ISSUES_KEY, "merge-candidates", projectId],
    queryFn: () => unwrap(api.GET("/v1/projects/{projectId}/issues", { params: { path: { projectId }, query: { data_mode: "all", limit: 200 } } })),
    enabled,
  });
}
