/**
 * The permissions each key type may hold (SPEC, Authentication). The API's schema types them as
 * plain strings, so the catalogue is listed here; the API refuses anything outside it with a 400.
 */
export const AGENT_PERMISSIONS = [
  "events:read",
  "users:write",
  "projects:read",
  "projects:write",
  "apps:read",
  "apps:write",
  "metrics:read",
  "metrics:write",
  "funnels:read",
  "funnels:write",
  "issues:read",
  "issues:write",
  "feedback:read",
  "feedback:write",
  "integrations:read",
  "integrations:write",
  "jobs:read",
  "jobs:write",
  "audit_logs:read",
] as const;

/** Outside the SPEC's catalogue and not a default, but the ads routes need it. */
export const OPTIONAL_AGENT_PERMISSIONS = ["users:read"] as const;

export const IMPORT_PERMISSIONS = ["events:write", "users:write"] as const;
