import { client } from "../test/support/http.ts";
import { signIn } from "../test/support/users.ts";

/** JSON over HTTP with a bearer credential; throws on any status other than `expected`. */
export async function call<T = any>(baseUrl: string, method: string, path: string, body?: unknown, token?: string, expected = [200, 201]): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!expected.includes(response.status)) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

export type Fleet = {
  token: string;
  teamId: string;
  projectId: string;
  apps: { id: string; clientKey: string; bundleId: string }[];
  /** The client key id of each app (facts name the key that sent them). */
  appKeyIds: Record<string, string>;
  /** Several agent keys: the events query is rate limited per key like ingest. */
  agentKeys: string[];
};

/**
 * A team the way an operator sets one up over HTTP: sign in, one project, `appCount` web apps
 * (each with its own client key, so the load spreads over many keys as a real fleet's does) and
 * agent keys for queries.
 */
export async function createFleet(baseUrl: string, outbox: string, appCount: number): Promise<Fleet> {
  const { token, teamId } = await signIn(client(baseUrl), outbox, `bench-${Date.now()}@example.test`);
  const project = await call(baseUrl, "POST", "/v1/projects", { team_id: teamId, name: "Bench", slug: `bench-${Date.now()}` }, token);
  const apps: Fleet["apps"] = [];
  for (let index = 0; index < appCount; index += 1) {
    const bundleId = `bench${index}.example.com`;
    const app = await call(baseUrl, "POST", "/v1/apps", { project_id: project.id, name: `Bench ${index}`, platform: "web", bundle_id: bundleId }, token);
    apps.push({ id: app.id, clientKey: app.client_secret, bundleId });
  }
  const agentKeys = await createAgentKeys(baseUrl, token, teamId, 16, "bench queries");
  const listed = await call(baseUrl, "GET", `/v1/auth/keys?team_id=${teamId}`, undefined, token);
  const appKeyIds = Object.fromEntries(
    (listed.api_keys as { id: string; app_id: string | null; key_type: string }[])
      .filter((key) => key.key_type === "client" && key.app_id !== null)
      .map((key) => [key.app_id!, key.id]),
  );
  return { token, teamId, projectId: project.id, apps, appKeyIds, agentKeys };
}

/** `count` agent keys of the team, named `<name> <n>`; their secrets. */
export async function createAgentKeys(baseUrl: string, token: string, teamId: string, count: number, name: string): Promise<string[]> {
  const secrets: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const agent = await call(baseUrl, "POST", "/v1/auth/keys", { name: `${name} ${index}`, key_type: "agent", team_id: teamId }, token);
    secrets.push(agent.api_key.secret);
  }
  return secrets;
}
