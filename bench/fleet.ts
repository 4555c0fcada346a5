import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

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

async function codeFor(outbox: string, email: string): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const files = (await readdir(outbox).catch(() => [])).filter((name) => name.endsWith(".json")).sort().reverse();
    for (const file of files) {
      const mail = JSON.parse(await readFile(join(outbox, file), "utf8")) as { to: string; text: string };
      const code = mail.to === email ? /\b(\d{6})\b/.exec(mail.text)?.[1] : undefined;
      if (code) return code;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no sign-in code for ${email}`);
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
  const email = `bench-${Date.now()}@example.test`;
  await call(baseUrl, "POST", "/v1/auth/send-code", { email });
  const session = await call(baseUrl, "POST", "/v1/auth/verify-code", { email, code: await codeFor(outbox, email) });
  const token = session.token as string;
  const teamId = session.teams[0].id as string;
  const project = await call(baseUrl, "POST", "/v1/projects", { team_id: teamId, name: "Bench", slug: `bench-${Date.now()}` }, token);
  const apps: Fleet["apps"] = [];
  for (let index = 0; index < appCount; index += 1) {
    const bundleId = `bench${index}.example.com`;
    const app = await call(baseUrl, "POST", "/v1/apps", { project_id: project.id, name: `Bench ${index}`, platform: "web", bundle_id: bundleId }, token);
    apps.push({ id: app.id, clientKey: app.client_secret, bundleId });
  }
  const agentKeys: string[] = [];
  for (let index = 0; index < 16; index += 1) {
    const agent = await call(baseUrl, "POST", "/v1/auth/keys", { name: `bench queries ${index}`, key_type: "agent", team_id: teamId }, token);
    agentKeys.push(agent.api_key.secret);
  }
  const listed = await call(baseUrl, "GET", `/v1/auth/keys?team_id=${teamId}`, undefined, token);
  const appKeyIds = Object.fromEntries(
    (listed.api_keys as { id: string; app_id: string | null; key_type: string }[])
      .filter((key) => key.key_type === "client" && key.app_id !== null)
      .map((key) => [key.app_id!, key.id]),
  );
  return { token, teamId, projectId: project.id, apps, appKeyIds, agentKeys };
}
