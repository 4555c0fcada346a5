/**
 * The MCP tools: each one is an HTTP route of this API, called for the agent with its own key, so
 * a tool validates and refuses exactly as the route does. Names are kebab-case, verb first; the
 * inputs are the route's path, query and body parameters under their HTTP names (openapi-tools.ts
 * reads them from the OpenAPI document). `fixed` body fields are set by the tool itself (a status
 * move per tool reads better to an agent than one tool with a status enum). Routes that take a
 * user session only (teams, members, invitations, key management, deleting projects and apps) have no tool: an agent key is
 * refused there.
 */
export type ToolRoute = { name: string; method: "GET" | "POST" | "PATCH" | "DELETE"; path: string; fixed?: Record<string, unknown>; description?: string };

const issue = "/v1/projects/{projectId}/issues/{issueId}";
const metric = "/v1/projects/{projectId}/metrics/{slug}";
const funnel = "/v1/projects/{projectId}/funnels/{slug}";
const feedback = "/v1/projects/{projectId}/feedback/{id}";
const integrations = "/v1/projects/{projectId}/integrations";
const ads = "/v1/projects/{projectId}/ads";

const statusMove = (name: string, status: string, description: string): ToolRoute => ({ name, method: "PATCH", path: issue, fixed: { status }, description });

export const TOOL_ROUTES: readonly ToolRoute[] = [
  { name: "whoami", method: "GET", path: "/v1/auth/whoami" },
  // Projects, apps, keys
  { name: "list-projects", method: "GET", path: "/v1/projects" },
  { name: "get-project", method: "GET", path: "/v1/projects/{id}" },
  { name: "create-project", method: "POST", path: "/v1/projects" },
  { name: "update-project", method: "PATCH", path: "/v1/projects/{id}" },
  { name: "list-apps", method: "GET", path: "/v1/apps" },
  { name: "get-app", method: "GET", path: "/v1/apps/{id}" },
  { name: "create-app", method: "POST", path: "/v1/apps" },
  { name: "rename-app", method: "PATCH", path: "/v1/apps/{id}" },
  {
    name: "create-import-key",
    method: "POST",
    path: "/v1/auth/keys",
    fixed: { key_type: "import" },
    description: "Create an import key for an app (needs apps:write): the key for POST /v1/import of historical events. The full secret is shown once.",
  },
  // Users
  { name: "list-app-users", method: "GET", path: "/v1/apps/{id}/users" },
  { name: "list-users", method: "GET", path: "/v1/app-users" },
  { name: "list-project-locales", method: "GET", path: "/v1/projects/{projectId}/users/locales" },
  { name: "list-locales", method: "GET", path: "/v1/users/locales" },
  // Events
  { name: "query-events", method: "GET", path: "/v1/events" },
  { name: "count-events", method: "GET", path: "/v1/events/count" },
  { name: "get-event", method: "GET", path: "/v1/events/{id}" },
  // Metrics and funnels
  { name: "list-metrics", method: "GET", path: "/v1/projects/{projectId}/metrics" },
  { name: "get-metric", method: "GET", path: metric },
  { name: "define-metric", method: "POST", path: "/v1/projects/{projectId}/metrics" },
  { name: "update-metric", method: "PATCH", path: metric },
  { name: "delete-metric", method: "DELETE", path: metric },
  { name: "query-metric", method: "GET", path: `${metric}/query` },
  { name: "list-metric-events", method: "GET", path: `${metric}/events` },
  { name: "get-metric-stats", method: "GET", path: "/v1/projects/{projectId}/metric-stats" },
  { name: "list-team-metrics", method: "GET", path: "/v1/metrics" },
  { name: "get-metric-by-id", method: "GET", path: "/v1/metrics/by-id/{id}" },
  { name: "get-team-metric-stats", method: "GET", path: "/v1/metric-stats" },
  { name: "count-metric-completions", method: "GET", path: "/v1/metrics/completions/count" },
  { name: "list-funnels", method: "GET", path: "/v1/projects/{projectId}/funnels" },
  { name: "get-funnel", method: "GET", path: funnel },
  { name: "create-funnel", method: "POST", path: "/v1/projects/{projectId}/funnels" },
  { name: "update-funnel", method: "PATCH", path: funnel },
  { name: "delete-funnel", method: "DELETE", path: funnel },
  { name: "query-funnel", method: "GET", path: `${funnel}/query` },
  { name: "list-team-funnels", method: "GET", path: "/v1/funnels" },
  { name: "get-funnel-by-id", method: "GET", path: "/v1/funnels/by-id/{id}" },
  { name: "count-funnel-completions", method: "GET", path: "/v1/funnels/completions/count" },
  // Issues
  { name: "list-issues", method: "GET", path: "/v1/projects/{projectId}/issues" },
  { name: "list-all-issues", method: "GET", path: "/v1/issues" },
  { name: "count-issues", method: "GET", path: "/v1/issues/count" },
  { name: "get-issue", method: "GET", path: issue },
  statusMove("resolve-issue", "resolved", "Resolve an issue in an app version (`resolved_at_version`, required): a later occurrence in a strictly newer version regresses it."),
  statusMove("start-issue", "in_progress", "Mark an issue in progress."),
  statusMove("reopen-issue", "new", "Move an issue back to new (clears resolved_at_version)."),
  statusMove("silence-issue", "silenced", "Silence an issue: it never changes by itself again."),
  statusMove("snooze-issue", "snoozed", "Snooze an issue: its next occurrence moves it back to new and notifies the team."),
  { name: "merge-issues", method: "POST", path: `${issue}/merge` },
  { name: "list-issue-comments", method: "GET", path: `${issue}/comments` },
  { name: "add-issue-comment", method: "POST", path: `${issue}/comments` },
  { name: "edit-issue-comment", method: "PATCH", path: `${issue}/comments/{commentId}` },
  { name: "delete-issue-comment", method: "DELETE", path: `${issue}/comments/{commentId}` },
  // Feedback
  { name: "list-feedback", method: "GET", path: "/v1/projects/{projectId}/feedback" },
  { name: "get-feedback", method: "GET", path: feedback },
  { name: "update-feedback-status", method: "PATCH", path: feedback },
  { name: "delete-feedback", method: "DELETE", path: feedback },
  { name: "list-feedback-comments", method: "GET", path: `${feedback}/comments` },
  { name: "add-feedback-comment", method: "POST", path: `${feedback}/comments` },
  { name: "edit-feedback-comment", method: "PATCH", path: `${feedback}/comments/{commentId}` },
  { name: "delete-feedback-comment", method: "DELETE", path: `${feedback}/comments/{commentId}` },
  // Attachments
  { name: "list-attachments", method: "GET", path: "/v1/attachments" },
  { name: "get-attachment", method: "GET", path: "/v1/attachments/{id}" },
  { name: "delete-attachment", method: "DELETE", path: "/v1/attachments/{id}" },
  { name: "get-attachment-usage", method: "GET", path: "/v1/projects/{projectId}/attachment-usage" },
  // Jobs and the audit log
  { name: "list-jobs", method: "GET", path: "/v1/teams/{teamId}/jobs" },
  { name: "get-job", method: "GET", path: "/v1/jobs/{runId}" },
  { name: "trigger-job", method: "POST", path: "/v1/teams/{teamId}/jobs/trigger" },
  { name: "cancel-job", method: "POST", path: "/v1/jobs/{runId}/cancel" },
  { name: "list-audit-logs", method: "GET", path: "/v1/teams/{teamId}/audit-logs" },
  // Integrations
  { name: "list-integration-providers", method: "GET", path: `${integrations}/providers` },
  { name: "list-integrations", method: "GET", path: integrations },
  { name: "get-integration", method: "GET", path: `${integrations}/{provider}` },
  { name: "create-integration", method: "POST", path: integrations },
  { name: "update-integration", method: "PATCH", path: `${integrations}/{provider}` },
  { name: "delete-integration", method: "DELETE", path: `${integrations}/{provider}` },
  { name: "sync-subscriptions", method: "POST", path: `${integrations}/subprov/sync` },
  { name: "sync-user-subscription", method: "POST", path: `${integrations}/subprov/sync/{userId}` },
  // Ads
  { name: "list-ad-campaigns", method: "GET", path: `${ads}/campaigns` },
  { name: "list-team-ad-campaigns", method: "GET", path: "/v1/ads/campaigns" },
  { name: "list-ad-groups", method: "GET", path: `${ads}/campaigns/{campaignId}/ad-groups` },
  { name: "list-ad-group-leaves", method: "GET", path: `${ads}/campaigns/{campaignId}/ad-groups/{adGroupId}/leaves` },
  { name: "sync-ads", method: "POST", path: `${ads}/sync` },
];
