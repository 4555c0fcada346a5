import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, eventsWhen, ingest } from "../support/events.ts";
import { anError, type Client } from "../support/http.ts";
import { spawnTsx } from "../support/processes.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * `GET /v1/events/export` through HTTP, and the CLI's `export` and `import` against the running
 * service: a round trip into another project keeps every field a client sends, and a second
 * import adds nothing.
 */

let service: TestService;
let http: Client;
let owner: SignedIn;
let source: Awaited<ReturnType<typeof projectWithApp>>;
let agentKey: string;
let directory: string;

/** Events with every field a client sends, some of them null or absent, two sharing a timestamp. */
const SENT = Array.from({ length: 7 }, (_, index) => ({
  ...anEvent({
    message: `export event ${index}`,
    level: ["info", "debug", "warn", "error"][index % 4],
    user_id: index % 3 === 0 ? null : `user-${index}`,
    screen_name: index % 2 ? "Checkout" : null,
    custom_attributes: index % 2 ? { plan: "pro", attempt: String(index) } : {},
    environment: "ios",
    os_version: "18.1",
    app_version: `2.${index}.0`,
    sdk_name: "swift",
    sdk_version: "3.1.0",
    build_number: String(100 + index),
    device_model: "iPhone15,2",
    locale: "de_DE",
    is_dev: index === 6,
    source_module: index % 2 ? "Payments" : null,
    timestamp: new Date(Date.UTC(2026, 10, 20, 12, 0, index === 5 ? 4 : index)).toISOString(),
  }),
}));

/** What a client sent, as the events list shows it, without what the service assigns. */
const sentFields = (event: any) => {
  const { id: _id, app_id: _app, api_key_id: _key, received_at: _received, country_code: _country, ...fields } = event;
  return fields;
};

const cli = async (args: string[], env: Record<string, string>) => {
  const child = spawnTsx("apps/cli/main.ts", { SERVICE_URL: service.baseUrl, ...env }, args);
  const { code } = await child.exited;
  return { code, output: child.output() };
};

beforeAll(async () => {
  ({ service, http, owner } = await startWithOwner());
  source = await projectWithApp(http, owner.token, owner.teamId);
  const answer = await ingest(http, source.clientKey, { bundle_id: source.app.bundle_id, events: SENT });
  expect(answer.body.accepted).toBe(SENT.length);
  await eventsWhen(http, owner.token, `app_id=${source.app.id}&data_mode=all&since=30d`, (events) => events.length === SENT.length);
  agentKey = (await http.post("/v1/auth/keys", { name: "export", key_type: "agent", team_id: owner.teamId }, { token: owner.token })).body.api_key.secret;
  directory = await mkdtemp(join(tmpdir(), "export-"));
});
afterAll(async () => {
  await stopTestService(service);
  await rm(directory, { recursive: true, force: true });
});

const lines = (text: string) => text.split("\n").filter(Boolean).map((line) => JSON.parse(line));

describe("GET /v1/events/export", () => {
  it("streams every event oldest first in the fields of the events list, gzip when accepted", async () => {
    const query = `project_id=${source.project.id}&data_mode=all`;
    const listed = await eventsWhen(http, agentKey, `${query}&since=30d&order=asc&limit=200`, (events) => events.length === SENT.length);
    const plain = await fetch(`${service.baseUrl}/v1/events/export?${query}`, { headers: { authorization: `Bearer ${agentKey}`, "accept-encoding": "identity" } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(lines(await plain.text())).toEqual(listed);

    const zipped = await fetch(`${service.baseUrl}/v1/events/export?${query}&level=error`, { headers: { authorization: `Bearer ${owner.token}`, "accept-encoding": "gzip" } });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    const errors = lines(new TextDecoder().decode(await zipped.arrayBuffer()));
    expect(errors.map((event) => event.message)).toEqual(listed.filter((event: any) => event.level === "error").map((event: any) => event.message));
    // (fetch undoes the gzip itself; the raw bytes are gzip too.)
    const raw = await new Promise<Buffer>((resolve, reject) => {
      import("node:http").then(({ get }) =>
        get(`${service.baseUrl}/v1/events/export?${query}`, { headers: { authorization: `Bearer ${agentKey}`, "accept-encoding": "gzip" } }, (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk)).on("end", () => resolve(Buffer.concat(chunks))).on("error", reject);
        }).on("error", reject),
      );
    });
    expect(lines(gunzipSync(raw).toString())).toEqual(listed);
  });

  it("needs a project or app, events:read and a visible scope", async () => {
    const unscoped = await http.get("/v1/events/export", { token: agentKey });
    expect(unscoped).toMatchObject({ status: 400, body: anError });
    expect(unscoped.body.error).toContain("project_id or app_id is required");
    expect((await http.get(`/v1/events/export?project_id=${source.project.id}`)).status).toBe(401);
    const narrow = (await http.post("/v1/auth/keys", { name: "no events", key_type: "agent", team_id: owner.teamId, permissions: ["apps:read"] }, { token: owner.token })).body.api_key.secret;
    expect((await http.get(`/v1/events/export?project_id=${source.project.id}`, { token: narrow })).status).toBe(403);
    const elsewhere = await fetch(`${service.baseUrl}/v1/events/export?project_id=${randomUUID()}`, { headers: { authorization: `Bearer ${agentKey}` } });
    expect(elsewhere.status).toBe(200);
    expect(await elsewhere.text()).toBe("");
  });
});

describe("npm run cli -- export / import", () => {
  it("moves every sent field into another project, and a second import adds nothing", { timeout: 120_000 }, async () => {
    const file = join(directory, "events.ndjson");
    const exported = await cli(["export", "--project-id", source.project.id, "--out", file], { API_KEY: agentKey });
    expect(exported.code, exported.output).toBe(0);
    expect(exported.output).toContain(`exported ${SENT.length} events`);
    const original = lines(await readFile(file, "utf8"));
    expect(original).toHaveLength(SENT.length);

    const target = await projectWithApp(http, owner.token, owner.teamId);
    const importKey = (await http.post("/v1/auth/keys", { name: "import", key_type: "import", app_id: target.app.id }, { token: owner.token })).body.api_key.secret;
    const imported = await cli(["import", file, "--key", importKey], {});
    expect(imported.code, imported.output).toBe(0);
    expect(imported.output).toContain(`imported ${SENT.length} events`);
    expect(imported.output).toContain(`${SENT.length} new, 0 updated, 0 rejected`);
    expect(existsSync(`${file}.import-position`)).toBe(false);

    const copies = await eventsWhen(http, owner.token, `app_id=${target.app.id}&data_mode=all&since=30d&order=asc&limit=200`, (events) => events.length === SENT.length);
    // Two events share a timestamp, and the copies have new ids: compare in message order.
    const byMessage = (a: any, b: any) => a.message.localeCompare(b.message);
    expect(copies.map(sentFields).sort(byMessage)).toEqual(original.map(sentFields).sort(byMessage));
    expect(copies.every((event: any) => event.app_id === target.app.id)).toBe(true);

    const again = await cli(["import", file, "--key", importKey], {});
    expect(again.output).toContain(`0 new, ${SENT.length} updated, 0 rejected`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await http.get(`/v1/events/count?app_id=${target.app.id}&data_mode=all&since=30d`, { token: owner.token })).body.count).toBe(SENT.length);
  });

  it("resumes after the position a stopped run saved", { timeout: 60_000 }, async () => {
    const target = await projectWithApp(http, owner.token, owner.teamId);
    const importKey = (await http.post("/v1/auth/keys", { name: "import", key_type: "import", app_id: target.app.id }, { token: owner.token })).body.api_key.secret;
    const file = join(directory, "resume.ndjson");
    const events = SENT.map((event) => ({ ...event, client_event_id: null }));
    const text = events.map((event) => JSON.stringify(event)).join("\n") + "\n";
    await writeFile(file, text);
    // As if a run had stored the first four lines and stopped.
    await writeFile(`${file}.import-position`, JSON.stringify({ size: Buffer.byteLength(text), lines: 4 }));
    const resumed = await cli(["import", file, "--key", importKey], {});
    expect(resumed.code, resumed.output).toBe(0);
    expect(resumed.output).toContain("(resumed after line 4)");
    const stored = await eventsWhen(http, owner.token, `app_id=${target.app.id}&data_mode=all&since=30d&order=asc`, (found) => found.length === 3);
    expect(stored.map((event: any) => event.message).sort()).toEqual(events.slice(4).map((event) => event.message));
  });

  it("says why when the key cannot import", async () => {
    const refused = await cli(["import", join(directory, "events.ndjson"), "--key", agentKey], {});
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/import failed: import refused at line 1 \(40[13]\)/);
  });
});
