import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { isActive, type JobStatus, type JobType } from "./job-types.ts";

export type JobsView = { jobType: JobType | undefined; status: JobStatus | undefined; projectId: string; cursor: string | undefined };

const JOBS_KEY = "job-runs";
/** While a run is pending or running its progress moves by the second. */
const ACTIVE_POLL_MS = 2_000;
/** Otherwise runs are started elsewhere (schedules, the API, other members): a new one shows within this. */
const IDLE_POLL_MS = 15_000;

export function useJobRuns(view: JobsView) {
  const { team } = useSession();
  return useQuery({
    queryKey: [JOBS_KEY, team.id, view],
    queryFn: () =>
      unwrap(
        api.GET("/v1/teams/{teamId}/jobs", {
          params: { path: { teamId: team.id }, query: { job_type: view.jobType, status: view.status, project_id: view.projectId || undefined, cursor: view.cursor, limit: 50 } },
        }),
      ),
    placeholderData: keepPreviousData,
    // Coming back to the page or to a filter asks again at once: a cached list may miss a run started since.
    staleTime: 0,
    refetchInterval: (query) => (query.state.data?.job_runs.some(isActive) ? ACTIVE_POLL_MS : IDLE_POLL_MS),
  });
}

export function useCancelRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => unwrap(api.POST("/v1/jobs/{runId}/cancel", { params: { path: { runId } } })),
    // A refused cancel (the run finished meanwhile) also means the list is out of date.
    onSettled: () => queryClient.invalidateQueries({ queryKey: [JOBS_KEY] }),
  });
}
