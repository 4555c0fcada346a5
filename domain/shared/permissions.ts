export const KEY_TYPES = ["client", "agent", "import"] as const;
export type KeyType = (typeof KEY_TYPES)[number];

export const KEY_PREFIX: Record<KeyType, string> = {
  client: "svc_client_",
  agent: "svc_agent_",
  import: "svc_import_",
};

export const AGENT_PERMISSIONS = [
  "users:write",
  "events:read",
  "funnels:read",
  "funnels:write",
  "apps:read",
  "apps:write",
  "projects:read",
  "projects:write",
  "metrics:read",
  "metrics:write",
  "audit_logs:read",
  "integrations:read",
  "integrations:write",
  "jobs:read",
  "jobs:write",
  "issues:read",
  "issues:write",
  // Added after the SPEC's catalogue: new agent keys get them by default, existing keys keep theirs.
  "feedback:read",
  "feedback:write",
] as const;

/** What each key type may hold; `users:read` (ads) is outside the catalogue but accepted for agent keys. */
export const ALLOWED_PERMISSIONS: Record<KeyType, readonly string[]> = {
  client: ["events:write", "users:write"],
  import: ["events:write", "users:write"],
  agent: [...AGENT_PERMISSIONS, "users:read"],
};

export const DEFAULT_PERMISSIONS: Record<KeyType, readonly string[]> = {
  client: ["events:write", "users:write"],
  import: ["events:write", "users:write"],
  agent: AGENT_PERMISSIONS,
};
