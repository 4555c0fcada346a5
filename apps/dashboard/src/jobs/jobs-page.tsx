import { NotBuilt } from "../pages/not-built.tsx";

export function JobsPage() {
  return <NotBuilt title="Jobs" plan="Job runs with their progress, and cancelling one." routes={["GET /v1/teams/{teamId}/jobs", "POST /v1/jobs/{runId}/cancel"]} />;
}
