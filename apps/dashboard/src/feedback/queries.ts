import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, ApiError, unwrap, type Answer } from "../api/client.ts";
import type { FeedbackStatus } from "./statuses.ts";

export type FeedbackDetail = Answer<"/v1/projects/{projectId}/feedback/{id}">;
export type DataMode = "production" | "development" | "all";
export type InboxView = { status: FeedbackStatus | undefined; appId: string; dataMode: DataMode; cursor: string | undefined };

const FEEDBACK_KEY = "feedback";

export function useFeedbackList(projectId: string | undefined, view: InboxView) {
  return useQuery({
    queryKey: [FEEDBACK_KEY, "list", projectId, view],
    queryFn: () =>
      unwrap(
        api.GET("/v1/projects/{projectId}/feedback", {
          params: { path: { projectId: projectId! }, query: { status: view.status, app_id: view.appId || undefined, data_mode: view.dataMode, cursor: view.cursor, limit: 50 } },
        }),
      ),
    enabled: projectId !== undefined,
    placeholderData: keepPreviousData,
  });
}

const detailOf = (projectId: string, id: string) => api.GET("/v1/projects/{projectId}/feedback/{id}", { params: { path: { projectId, id } } });

/**
 * Feedback whose project is not known: notification mails link to `/feedback/<id>` alone. Each
 * of the user's projects is asked at once; the one that has it answers, the others say 404.
 */
async function feedbackInAnyProject(id: string): Promise<FeedbackDetail> {
  const { projects } = await unwrap(api.GET("/v1/projects"));
  const answers = await Promise.all(projects.map((project) => detailOf(project.id, id)));
  const found = answers.find((answer) => answer.data !== undefined);
  if (found?.data) return found.data;
  const failed = answers.find((answer) => answer.response.status !== 404);
  if (failed) return unwrap(Promise.resolve(failed));
  throw new ApiError(404, "There is no such feedback in any of your projects: it may have been deleted.", undefined);
}

/** One feedback with its comments; `projectId` from the URL when the link carried it. */
export function useFeedback(projectId: string | undefined, id: string) {
  return useQuery({
    queryKey: [FEEDBACK_KEY, "detail", id, projectId ?? null],
    queryFn: () => (projectId ? unwrap(detailOf(projectId, id)) : feedbackInAnyProject(id)),
  });
}

/** Changing the status and commenting; both refresh the feedback and the inbox (its status, its comment count). */
export function useFeedbackChanges(feedback: FeedbackDetail) {
  const queryClient = useQueryClient();
  const path = { projectId: feedback.project_id, id: feedback.id };
  const onSuccess = () => queryClient.invalidateQueries({ queryKey: [FEEDBACK_KEY] });
  const setStatus = useMutation({
    mutationFn: (status: FeedbackStatus) => unwrap(api.PATCH("/v1/projects/{projectId}/feedback/{id}", { params: { path }, body: { status } })),
    onSuccess,
  });
  const comment = useMutation({
    mutationFn: (body: string) => unwrap(api.POST("/v1/projects/{projectId}/feedback/{id}/comments", { params: { path }, body: { body } })),
    onSuccess,
  });
  return { setStatus, comment };
}
