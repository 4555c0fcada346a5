import { NotBuilt } from "../pages/not-built.tsx";

export function FeedbackPage() {
  return <NotBuilt title="Feedback" plan="The feedback inbox and each message with its comments." routes={["GET /v1/projects/{projectId}/feedback/{id}"]} />;
}
