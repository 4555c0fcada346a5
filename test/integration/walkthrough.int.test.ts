import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { sql } from "slonik";
import { afterAll, beforeAll, expect, it } from "vitest";
import { client } from "../support/http.ts";
import { startTestService, stopTestService, type TestService } from "../support/service.ts";
import { uniqueEmail } from "../support/users.ts";

/** The README's "First five minutes" block, run by bash exactly as written against a live service. */

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => stopTestService(service));

async function readmeWalkthrough(): Promise<string> {
  const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## First five minutes"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("README.md has no walkthrough block");
  return block;
}

it("signs in, creates a project and an app, and gets a working client key", async () => {
  const script = `set -euo pipefail\n${await readmeWalkthrough()}\necho\necho "project $PROJECT_ID"\necho "client key $CLIENT_KEY"\n`;
  const { stdout } = await promisify(execFile)("bash", ["-c", script], {
    env: { ...process.env, BASE: service.baseUrl, OUTBOX: service.outbox, EMAIL: uniqueEmail("newcomer") },
    timeout: 30_000,
  });
  const clientKey = /^client key (svc_client_\S+)$/m.exec(stdout)?.[1];
  const projectId = /^project (\S+)$/m.exec(stdout)?.[1];
  expect(clientKey, stdout).toBeDefined();
  expect(stdout).toContain('"key_type":"client"');
  const whoami = await client(service.baseUrl).get("/v1/auth/whoami", { token: clientKey });
  expect(whoami.body).toMatchObject({ type: "api_key", key_type: "client", permissions: ["events:write", "users:write"] });
  expect(await service.pool.anyFirst(sql.unsafe`select id from apps where project_id = ${projectId!}`)).toHaveLength(1);
});
