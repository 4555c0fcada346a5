import { NotBuilt } from "../pages/not-built.tsx";

export function SettingsPage() {
  return <NotBuilt title="Settings" plan="Projects, apps and their keys, API keys, members and roles, invitations, integrations and the audit log." routes={["GET /v1/projects", "GET /v1/apps", "GET /v1/auth/keys", "GET /v1/teams/{teamId}/members"]} />;
}
