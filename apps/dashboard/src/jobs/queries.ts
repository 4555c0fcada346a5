import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client.ts";
import { useSession } from "../session/session.tsx";
import { isActive, type JobStatus, type JobType } from "./job-types.ts";

export type JobsView = { jobType: JobType | undefined; status: JobStatus | undefined; projectId: string; cursor: string | undefined };

const JOBS_KEY = "job-runs";
/** While a run is pending or running its progress moves by the second; finished lists refresh like any page. */
const ACTIVE_POLL_MS = 2_000;

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
    refetchInterval: (query) => (query.state.data?.job_runs.some(isActive) ? ACTIVE_POLL_MS : 60_000),
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
