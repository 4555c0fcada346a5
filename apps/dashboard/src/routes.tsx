import { Route, Routes } from "react-router";
import { Shell } from "./layout/shell.tsx";
import { OverviewPage } from "./overview/overview-page.tsx";
import { NotBuilt, NotFound } from "./pages/not-built.tsx";

/**
 * Every URL of the dashboard, below /dashboard. The later pages of issue 19 are placeholders
 * until they are built, so links that already point at them (notification mails) open a page.
 */
export function DashboardRoutes() {
  return (
    <Routes>
      <Route element={<Shell />}>
        <Route index element={<OverviewPage />} />
        <Route
          path="events"
          element={<NotBuilt title="Events" plan="Every filter of the event list, cursor paging, an event's attributes and attachments, and a live tail." routes={["GET /v1/events", "GET /v1/events/{id}"]} />}
        />
        <Route path="issues" element={<NotBuilt title="Issues" plan="A board with a column per status, and each issue's detail." routes={["GET /v1/issues", "GET /v1/issues/count"]} />} />
        <Route
          path="issues/:id"
          element={<NotBuilt title="Issue" plan="Occurrences, fingerprints, comments, status moves and merging." routes={["GET /v1/projects/{projectId}/issues/{issueId}"]} />}
        />
        <Route path="metrics" element={<NotBuilt title="Metrics" plan="Definitions, a query chart with grouping, percentiles and the error breakdown." routes={["GET /v1/metrics", "GET /v1/projects/{projectId}/metrics/{slug}/query"]} />} />
        <Route path="funnels" element={<NotBuilt title="Funnels" plan="A definition editor, step bars with drop-off, open and closed modes, breakdowns." routes={["GET /v1/funnels", "GET /v1/projects/{projectId}/funnels/{slug}/query"]} />} />
        <Route path="users" element={<NotBuilt title="Users" plan="Users with filters, and each user's properties, apps and recent events." routes={["GET /v1/app-users"]} />} />
        <Route path="feedback/:id" element={<NotBuilt title="Feedback" plan="The feedback inbox and each message with its comments." routes={["GET /v1/projects/{projectId}/feedback/{id}"]} />} />
        <Route path="jobs" element={<NotBuilt title="Jobs" plan="Job runs with their progress, and cancelling one." routes={["GET /v1/teams/{teamId}/jobs", "POST /v1/jobs/{runId}/cancel"]} />} />
        <Route
          path="settings/*"
          element={<NotBuilt title="Settings" plan="Projects, apps and their keys, API keys, members and roles, invitations, integrations and the audit log." routes={["GET /v1/projects", "GET /v1/apps", "GET /v1/auth/keys", "GET /v1/teams/{teamId}/members"]} />}
        />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
