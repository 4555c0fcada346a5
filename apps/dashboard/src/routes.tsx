import { Route, Routes } from "react-router";
import { EventsPage } from "./events/events-page.tsx";
import { FeedbackPage } from "./feedback/feedback-page.tsx";
import { FunnelsPage } from "./funnels/funnels-page.tsx";
import { IssuePage } from "./issues/issue-page.tsx";
import { IssuesPage } from "./issues/issues-page.tsx";
import { JobsPage } from "./jobs/jobs-page.tsx";
import { Shell } from "./layout/shell.tsx";
import { MetricsPage } from "./metrics/metrics-page.tsx";
import { NotificationsPage } from "./notifications/notifications-page.tsx";
import { OverviewPage } from "./overview/overview-page.tsx";
import { NotFound } from "./pages/not-found.tsx";
import { SettingsPage } from "./settings/settings-page.tsx";
import { UsersPage } from "./users/users-page.tsx";

/**
 * Every URL of the dashboard, below /dashboard. Each area keeps its own sub-routes (a detail, a
 * settings tab) inside its page module; notification mails link to these paths.
 */
export function DashboardRoutes() {
  return (
    <Routes>
      <Route element={<Shell />}>
        <Route index element={<OverviewPage />} />
        <Route path="events/*" element={<EventsPage />} />
        <Route path="issues" element={<IssuesPage />} />
        <Route path="issues/:id" element={<IssuePage />} />
        <Route path="metrics/*" element={<MetricsPage />} />
        <Route path="funnels/*" element={<FunnelsPage />} />
        <Route path="users/*" element={<UsersPage />} />
        <Route path="feedback/*" element={<FeedbackPage />} />
        <Route path="notifications" element={<NotificationsPage />} />
        <Route path="jobs" element={<JobsPage />} />
        <Route path="settings/*" element={<SettingsPage />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
