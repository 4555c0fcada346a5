import { randomUUID } from "node:crypto";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOL_ROUTES } from "../../apps/api/mcp/tool-catalogue.ts";
import { AGENT_PERMISSIONS } from "../../domain/shared/permissions.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, eventsWhen, ingest } from "../support/events.ts";
import type { Client } from "../support/http.ts";
import { waitUntil } from "../support/processes.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * The MCP endpoint driven by the official SDK's client over Streamable HTTP: agent-key auth, the
 * tool list, every tool called at least once, permission refusals and bad input as tool errors,
 * the guide resource.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let project: any;
let app: any;
let clientKey: string;
let agentKey: string;
const connected: McpClient[] = [];

async function connect(key: string): Promise<McpClient> {
  const client = new McpClient({ name: "mcp-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  connected.push(client);
  return client;
}

const agentKeyWith = async (permissions?: string[]) =>
  (await http.post("/v1/auth/keys", { name: "mcp", key_type: "agent", team_id: owner.teamId, ...(permissions ? { permissions } : {}) }, { token: owner.token })).body.api_key.secret as string;

const textOf = (result: any): string => result.content.map((part: any) => part.text).join("");
const jsonOf = (result: any): any => JSON.parse(textOf(result));

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  ({ project, app, clientKey } = await projectWithApp(http, owner.token, owner.teamId));
  agentKey = await agentKeyWith();
});
afterAll(async () => {
  for (const client of connected) await client.close().catch(() => undefined);
  await stopTestService(service);
});

describe("authentication", () => {
  const post = (authorization?: string) =>
    fetch(`${service.baseUrl}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });

  it("takes agent keys only, with a clear 401 and no OAuth discovery", async () => {
    for (const authorization of [undefined, `Bearer ${owner.token}`, `Bearer ${clientKey}`, "Bearer svc_agent_nonsense"]) {
      const answer = await post(authorization);
      expect(answer.status, authorization).toBe(401);
      expect((await answer.json()).error).toEqual(expect.any(String));
      expect(answer.headers.get("www-authenticate") ?? "").not.toContain("resource_metadata");
    }
    expect((await post(`Bearer ${clientKey}`).then((answer) => answer.json())).error).toContain("agent key");
    expect((await post(`Bearer ${agentKey}`)).status).toBe(200);
  });
});

describe("tools", () => {
  it("lists every tool, kebab-case and verb first, with the route's parameters as its input schema", async () => {
    const client = await connect(agentKey);
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([...TOOL_ROUTES.map((route) => route.name), "investigate-event"]));
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(tool.description?.length, tool.name).toBeGreaterThan(10);
      expect(tool.inputSchema.type).toBe("object");
    }
    const queryEvents = tools.find((tool) => tool.name === "query-events")!;
    expect(Object.keys(queryEvents.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["project_id", "app_id", "level", "user_id", "since", "cursor", "limit"]));
    const resolve = tools.find((tool) => tool.name === "resolve-issue")!;
    expect(resolve.inputSchema.required).toEqual(expect.arrayContaining(["projectId", "issueId"]));
    expect(Object.keys(resolve.inputSchema.properties ?? {})).not.toContain("status");
    expect(Object.keys(resolve.inputSchema.properties ?? {})).toContain("resolved_at_version");
  });

  it("calls every tool, answering as the route does", { timeout: 120_000 }, async () => {
    // The ads routes need users:read, which is outside the catalogue and so not a default.
    const client = await connect(await agentKeyWith([...AGENT_PERMISSIONS, "users:read"]));
    const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<any>;
    const called = new Set<string>();
    const ok = async (name: string, args: Record<string, unknown> = {}) => {
      called.add(name);
      const result = await call(name, args);
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
      return jsonOf(result);
    };
    /** A call the route refuses for a reason of its own (nothing to find, no integration): still a tool result. */
    const refused = async (name: string, args: Record<string, unknown>, status: number) => {
      called.add(name);
      const result = await call(name, args);
      expect(result.isError, name).toBe(true);
      expect(textOf(result), name).toMatch(new RegExp(`^${status}: `));
    };

    const session = randomUUID();
    const errorMessage = `MCP failure ${randomUUID().slice(0, 8).replace(/\d/g, "x")}`;
    await ingest(http, clientKey, {
      bundle_id: app.bundle_id,
      events: [
        anEvent({ message: "metric:checkout:start", session_id: session, user_id: "mcp-user" }),
        anEvent({ message: "step:opened", session_id: session, user_id: "mcp-user" }),
        anEvent({ message: errorMessage, level: "error", session_id: session, user_id: "mcp-user", app_version: "1.0.0" }),
      ],
    });
    const [errorEvent] = await eventsWhen(http, owner.token, `app_id=${app.id}&level=error`, (events) => events.length === 1);
    const feedbackId = (await http.post("/v1/feedback", { bundle_id: app.bundle_id, message: "Nice app" }, { token: clientKey })).body.id;

    expect(await ok("whoami")).toMatchObject({ type: "api_key", key_type: "agent", team: { id: owner.teamId }, permissions: expect.arrayContaining(["users:read"]) });
    expect((await ok("list-projects")).projects.map((p: any) => p.id)).toContain(project.id);
    await ok("get-project", { id: project.id });
    const created = await ok("create-project", { team_id: owner.teamId, name: "Made by an agent", slug: `agent-${randomUUID().slice(0, 8)}` });
    await ok("update-project", { id: created.id, name: "Renamed by an agent" });
    await ok("list-apps", { project_id: project.id });
    await ok("get-app", { id: app.id });
    const newApp = await ok("create-app", { project_id: created.id, name: "Agent app", platform: "web", bundle_id: "agent.example.com" });
    expect((await ok("create-import-key", { name: "history", app_id: newApp.id })).api_key.secret).toMatch(/^svc_import_/);
    await ok("rename-app", { id: newApp.id, name: "Agent web app" });
    await waitUntil("the user", async () => (await http.get(`/v1/apps/${app.id}/users`, { token: owner.token })).body.users?.length > 0, 10_000);
    await ok("list-app-users", { id: app.id });
    await ok("list-users");
    await ok("list-project-locales", { projectId: project.id });
    await ok("list-locales");
    expect((await ok("query-events", { app_id: app.id, level: "error" })).events).toHaveLength(1);
    expect((await ok("count-events", { app_id: app.id })).count).toBe(3);
    await ok("get-event", { id: errorEvent.id });
    const investigated = await ok("investigate-event", { id: errorEvent.id });
    expect(investigated.session_timeline.map((event: any) => event.message)).toContain("metric:checkout:start");
    expect(investigated.user_events_around).toHaveLength(3);

    const defined = await ok("define-metric", { projectId: project.id, name: "Checkout", slug: "checkout" });
    await ok("list-team-metrics", { team_id: owner.teamId });
    await ok("get-metric-by-id", { id: defined.id });
    await ok("get-team-metric-stats", { team_id: owner.teamId });
    await ok("count-metric-completions", { project_id: project.id });
    await ok("list-metrics", { projectId: project.id });
    await ok("get-metric", { projectId: project.id, slug: "checkout" });
    await ok("update-metric", { projectId: project.id, slug: "checkout", name: "Checkout flow" });
    await ok("query-metric", { projectId: project.id, slug: "checkout" });
    await ok("list-metric-events", { projectId: project.id, slug: "checkout" });
    await ok("get-metric-stats", { projectId: project.id });
    await ok("delete-metric", { projectId: project.id, slug: "checkout" });
    const createdFunnel = await ok("create-funnel", {
      projectId: project.id,
      name: "Onboarding",
      slug: "onboarding",
      steps: [
        { name: "Opened", event_filter: { step_name: "opened" } },
        { name: "Signed up", event_filter: { step_name: "signed_up" } },
      ],
    });
    await ok("list-team-funnels", { team_id: owner.teamId });
    await ok("get-funnel-by-id", { id: createdFunnel.id });
    await ok("count-funnel-completions", { project_id: project.id });
    await ok("list-funnels", { projectId: project.id });
    await ok("get-funnel", { projectId: project.id, slug: "onboarding" });
    await ok("update-funnel", { projectId: project.id, slug: "onboarding", name: "Onboarding flow" });
    await ok("query-funnel", { projectId: project.id, slug: "onboarding" });
    await ok("delete-funnel", { projectId: project.id, slug: "onboarding" });

    const issueId = await waitUntil(
      "the issue",
      async () => (await http.get(`/v1/projects/${project.id}/issues`, { token: owner.token })).body.issues?.find((issue: any) => issue.title === errorMessage)?.id,
      10_000,
    );
    expect((await ok("list-issues", { projectId: project.id })).issues.map((issue: any) => issue.id)).toContain(issueId);
    await ok("list-all-issues");
    await ok("count-issues");
    await ok("get-issue", { projectId: project.id, issueId });
    await ok("start-issue", { projectId: project.id, issueId });
    expect((await ok("resolve-issue", { projectId: project.id, issueId, resolved_at_version: "1.0.1" })).status).toBe("resolved");
    await ok("reopen-issue", { projectId: project.id, issueId });
    await ok("snooze-issue", { projectId: project.id, issueId });
    await ok("silence-issue", { projectId: project.id, issueId });
    await refused("merge-issues", { projectId: project.id, issueId, source_issue_id: issueId }, 400);
    const comment = await ok("add-issue-comment", { projectId: project.id, issueId, body: "Looking into it" });
    await ok("list-issue-comments", { projectId: project.id, issueId });
    await ok("edit-issue-comment", { projectId: project.id, issueId, commentId: comment.id, body: "Fixed in 1.0.1" });
    await ok("delete-issue-comment", { projectId: project.id, issueId, commentId: comment.id });

    await waitUntil("the feedback", async () => (await http.get(`/v1/projects/${project.id}/feedback/${feedbackId}`, { token: owner.token })).status === 200, 10_000);
    await ok("list-feedback", { projectId: project.id });
    await ok("get-feedback", { projectId: project.id, id: feedbackId });
    await ok("update-feedback-status", { projectId: project.id, id: feedbackId, status: "in_review" });
    const feedbackComment = await ok("add-feedback-comment", { projectId: project.id, id: feedbackId, body: "Thanks!" });
    await ok("list-feedback-comments", { projectId: project.id, id: feedbackId });
    await ok("edit-feedback-comment", { projectId: project.id, id: feedbackId, commentId: feedbackComment.id, body: "Thanks, fixed." });
    await ok("delete-feedback-comment", { projectId: project.id, id: feedbackId, commentId: feedbackComment.id });
    await ok("delete-feedback", { projectId: project.id, id: feedbackId });

    await ok("list-attachments", { project_id: project.id });
    await ok("get-attachment-usage", { projectId: project.id });
    await refused("get-attachment", { id: randomUUID() }, 404);
    // Deleting needs events:write, which agent keys cannot hold: refused as over HTTP.
    await refused("delete-attachment", { id: randomUUID() }, 403);

    const run = await ok("trigger-job", { teamId: owner.teamId, job_type: "issue_scan", project_id: project.id });
    await ok("list-jobs", { teamId: owner.teamId });
    await ok("get-job", { runId: run.job_run.id });
    called.add("cancel-job");
    await call("cancel-job", { runId: run.job_run.id }); // 200, or 409 when the scan already finished
    await ok("list-audit-logs", { teamId: owner.teamId });

    await ok("list-integration-providers", { projectId: project.id });
    await ok("list-integrations", { projectId: project.id });
    await refused("get-integration", { projectId: project.id, provider: "subprov" }, 404);
    await refused("create-integration", { projectId: project.id, provider: "subprov", config: { unknown_field: "x" } }, 400);
    await refused("update-integration", { projectId: project.id, provider: "subprov", enabled: false }, 404);
    await refused("delete-integration", { projectId: project.id, provider: "subprov" }, 404);
    await refused("sync-subscriptions", { projectId: project.id }, 404);
    await refused("sync-user-subscription", { projectId: project.id, userId: "mcp-user" }, 404);

    await ok("list-ad-campaigns", { projectId: project.id });
    await ok("list-team-ad-campaigns");
    await ok("list-ad-groups", { projectId: project.id, campaignId: "1" });
    await ok("list-ad-group-leaves", { projectId: project.id, campaignId: "1", adGroupId: "2" });
    called.add("sync-ads");
    await call("sync-ads", { projectId: project.id });

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).filter((name) => !called.has(name))).toEqual([]);
  });

  it("refuses what the key may not do, and bad input, as tool errors with the API's message", async () => {
    const reader = await connect(await agentKeyWith(["projects:read", "issues:read"]));
    const denied = (await reader.callTool({ name: "resolve-issue", arguments: { projectId: project.id, issueId: randomUUID(), resolved_at_version: "2.0" } })) as any;
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toMatch(/^403: .*issues:write/);
    const noEvents = (await reader.callTool({ name: "query-events", arguments: { project_id: project.id } })) as any;
    expect(textOf(noEvents)).toMatch(/^403: /);

    const client = await connect(agentKey);
    const bad = (await client.callTool({ name: "query-events", arguments: { level: "loud" } })) as any;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^400: level: /);
    const unknown = (await client.callTool({ name: "get-issue", arguments: { projectId: project.id, issueId: "not-a-uuid" } })) as any;
    expect(textOf(unknown)).toMatch(/^400: /);
  });

  it("serves the guide as a resource", async () => {
    const client = await connect(agentKey);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(["guide://instrumenting-and-querying"]);
    const guide = await client.readResource({ uri: "guide://instrumenting-and-querying" });
    expect((guide.contents[0] as any).text).toContain("# Instrumenting an app and querying it");
  });
});
