import { NotBuilt } from "../pages/not-built.tsx";

export function FunnelsPage() {
  return <NotBuilt title="Funnels" plan="A definition editor, step bars with drop-off, open and closed modes, breakdowns." routes={["GET /v1/funnels", "GET /v1/projects/{projectId}/funnels/{slug}/query"]} />;
}
