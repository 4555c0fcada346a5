/** The MCP resource `guide://instrumenting-and-querying`: what an agent needs before its first tool call. */
export const GUIDE_URI = "guide://instrumenting-and-querying";

export const GUIDE = `# Instrumenting an app and querying it

## Where things are
- A team holds projects; a project holds apps (one per platform build: apple, android, web, backend).
- Each app has a client key (\`svc_client_…\`) that its SDK uses for \`POST /v1/ingest\`; history goes
  through \`POST /v1/import\` with an import key (tool \`create-import-key\`).
- You are an agent key: \`whoami\` tells your team and permissions. Every tool refuses what the same
  HTTP call would refuse, with the same error text.

## Instrumenting
- Send events in batches: \`{bundle_id, events:[{message, level (debug|info|warn|error), session_id (uuid),
  client_event_id (uuid, makes retries safe), user_id?, timestamp?, screen_name?, custom_attributes?, app_version?, …}]}\`.
- Errors are \`level: "error"\`: each becomes an issue within seconds, grouped by source module and
  normalized message (set \`_error_type\` in custom_attributes to split one call site by error type;
  network failures as message \`sdk:network_request\` with \`_http_method\` and \`_http_url\`).
- Metrics: messages \`metric:<slug>:start|complete|fail\` measure an operation (define it with
  \`define-metric\`); funnels: messages \`step:<step_name>\` (define with \`create-funnel\`).
- Identity: an anonymous id (\`svc_anon_…\`) is claimed by a known user id once they sign in.

## Querying
- \`query-events\` (filters: project_id, app_id, level, user_id, session_id, environment, screen_name,
  since/until as \`30m\`, \`24h\`, \`7d\` or ISO, data_mode production|development|all; page with cursor).
- \`investigate-event\` gives an event, its session's timeline and the same user's events around it.
- \`list-issues\` / \`get-issue\` for errors; move them with \`resolve-issue\` (needs resolved_at_version),
  \`start-issue\`, \`snooze-issue\`, \`silence-issue\`, \`reopen-issue\`; \`merge-issues\` joins duplicates.
- \`query-metric\` (success rates, durations, group_by) and \`query-funnel\` (conversion per step).
- \`list-jobs\` / \`trigger-job\` (issue_scan, subprov_sync, …) for background work.
`;
