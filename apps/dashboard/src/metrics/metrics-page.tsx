import { NotBuilt } from "../pages/not-built.tsx";

export function MetricsPage() {
  return <NotBuilt title="Metrics" plan="Definitions, a query chart with grouping, percentiles and the error breakdown." routes={["GET /v1/metrics", "GET /v1/projects/{projectId}/metrics/{slug}/query"]} />;
}
