import { NotBuilt } from "../pages/not-built.tsx";

export function IssuePage() {
  return <NotBuilt title="Issue" plan="Occurrences, fingerprints, comments, status moves and merging." routes={["GET /v1/projects/{projectId}/issues/{issueId}"]} />;
}
