import { Navigate, NavLink, Route, Routes } from "react-router";
import { ApiKeysTab } from "./api-keys-tab.tsx";
import { AppsTab } from "./apps-tab.tsx";
import { AuditLogTab } from "./audit-log-tab.tsx";
import { IntegrationsTab } from "./integrations-tab.tsx";
import { ProjectEditor } from "./project-editor.tsx";
import { ProjectsTab } from "./projects-tab.tsx";
import "./settings.css";
import { TeamTab } from "./team-tab.tsx";

/** The tabs in the order of issue 19; each is a URL of its own below /settings. */
const TABS = [
  { path: "projects", label: "Projects" },
  { path: "apps", label: "Apps" },
  { path: "api-keys", label: "API keys" },
  { path: "team", label: "Team" },
  { path: "integrations", label: "Integrations" },
  { path: "audit-log", label: "Audit log" },
] as const;

/**
 * The team's settings. Tabs are real links (reload, share, the back button), and a tab's own view
 * state (project, filters) is in its query string.
 */
export function SettingsPage() {
  return (
    <section aria-labelledby="page-title" className="settings">
      <div className="page-head">
        <h1 id="page-title">Settings</h1>
      </div>
      <nav className="tabs" aria-label="Settings">
        {TABS.map((tab) => (
          <NavLink key={tab.path} to={`/settings/${tab.path}`}>
            {tab.label}
          </NavLink>
        ))}
      </nav>
      <Routes>
        <Route index element={<Navigate to="projects" replace />} />
        <Route path="projects" element={<ProjectsTab />} />
        <Route path="projects/:projectId" element={<ProjectEditor />} />
        <Route path="apps" element={<AppsTab />} />
        <Route path="api-keys" element={<ApiKeysTab />} />
        <Route path="team" element={<TeamTab />} />
        <Route path="integrations" element={<IntegrationsTab />} />
        <Route path="audit-log" element={<AuditLogTab />} />
        <Route path="*" element={<Navigate to="/settings/projects" replace />} />
      </Routes>
    </section>
  );
}
