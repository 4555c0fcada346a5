import { NotBuilt } from "../pages/not-built.tsx";

export function IssuesPage() {
  return <NotBuilt title="Issues" plan="A board with a column per status, and each issue's detail." routes={["GET /v1/issues", "GET /v1/issues/count"]} />;
}
