import { readFile, rm } from "node:fs/promises";
import { afterAll, expect, it } from "vitest";
import type { Config } from "../../apps/config.ts";
import { projectWithApp } from "../support/catalog.ts";
import { anEvent, ingest } from "../support/events.ts";
import { client } from "../support/http.ts";
import { sampleOf } from "../support/prometheus.ts";
import { buildOnce, cleanUp, freePort, spawnBuilt, waitUntil, type OwnedProcess } from "../support/processes.ts";
import { dropDatabase, serviceEnv, testConfig } from "../support/service.ts";
import { dropNamespace } from "../support/streams.ts";
import { signIn } from "../support/users.ts";

/**
 * What `npm start` runs: the build, then the compiled entry point with the API in one process and
 * the projectors and the worker in two child processes it supervises (the `events` read model in
 * one, the rest and the worker in the other). Writes are answered only once the children have
 * projected them, a killed child is restarted, and SIGTERM stops them all.
 */

let parent: OwnedProcess | undefined;
let config: Config | undefined;

afterAll(async () => {
  await cleanUp([
    () => parent?.stop("SIGKILL"),
    () => config && dropNamespace(config.natsServers, config.namespace),
    () => config && dropDatabase(config.databaseUrl),
    () => config && rm(config.mailOutboxDir, { recursive: true, force: true }),
  ]);
});

const childrenOf = async (pid: number): Promise<number[]> =>
  (await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "")).split(/\s+/).filter(Boolean).map(Number);

/** The background children of `pid`, told apart from other children (tsx's compiler service) by their command lines. */
async function backgroundChildrenOf(pid: number): Promise<number[]> {
  const found = [];
  for (const child of await childrenOf(pid)) {
    const command = await readFile(`/proc/${child}/cmdline`, "utf8").catch(() => "");
    if (command.includes("background/main.js")) found.push(child);
  }
  return found;
}

/** Both background children, once the parent has started them. */
const bothChildren = (timeoutMs: number) =>
  waitUntil("both background children", async () => {
    const children = await backgroundChildrenOf(parent!.pid);
    return children.length === 2 && children;
  }, timeoutMs);

/** The background child the parent starts after `killed`, one that was not among `before`, looked for every `pollMs`. */
const replacementOf = (killed: number, before: number[], pollMs: number) =>
  waitUntil(
    "a new background child",
    async () => (await backgroundChildrenOf(parent!.pid)).find((child) => child !== killed && !before.includes(child)) ?? false,
    20_000,
    pollMs,
  );

/** The nice value of a process: field 19 of /proc/<pid>/stat, counted after the command name. */
async function niceOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it("runs the projectors and the worker in supervised child processes and stops them on SIGTERM", { timeout: 180_000 }, async () => {
  config = await testConfig();
  const port = await freePort();
  await buildOnce();
  parent = spawnBuilt("apps/main.ts", { ...serviceEnv(config), PORT: String(port), HOST: "127.0.0.1" });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil("the service to answer", async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok, 60_000, 200);
  const http = client(baseUrl);

  const children = await bothChildren(20_000);
  // Ingest answers go first when the processes want the cores.
  for (const child of children) expect(await niceOf(child)).toBeGreaterThanOrEqual(Math.max(10, await niceOf(parent.pid)));
  const projector = children[0]!;
  // verify-code creates a user and a team and answers only once the child projected them.
  const user = await signIn(http, config.mailOutboxDir);
  expect(user.teamId).toBeDefined();

  // Prometheus: the API's /metrics holds its own series and both children's, told apart by role and pid.
  const { app, clientKey } = await projectWithApp(http, user.token, user.teamId!);
  const sent = await ingest(http, clientKey, { bundle_id: app.bundle_id, events: [anEvent(), anEvent(), anEvent({ level: "loud" })] });
  expect(sent.body).toMatchObject({ accepted: 2, rejected: 1 });
  const scrape = async () => {
    const answer = await fetch(`${baseUrl}/metrics`);
    expect(answer.headers.get("content-type")).toMatch(/^text\/plain/);
    return answer.text();
  };
  const exposition = await waitUntil(
    "both children's projector batches in /metrics",
    async () => {
      const text = await scrape();
      return sampleOf(text, "projector_facts_total", { read_model: "events", role: "projector" }) && sampleOf(text, "projector_facts_total", { read_model: "funnel_events", role: "projector+worker" }) ? text : undefined;
    },
    20_000,
    200,
  );
  const api = { role: "api", pid: String(parent.pid) };
  expect(sampleOf(exposition, "ingest_events_total", { ...api, route: "ingest", outcome: "accepted" })).toBe(2);
  expect(sampleOf(exposition, "ingest_events_total", { ...api, route: "ingest", outcome: "rejected" })).toBe(1);
  expect(sampleOf(exposition, "http_request_duration_seconds_count", { ...api, method: "POST", route: "/v1/ingest", status_code: "200" })).toBe(1);
  expect(sampleOf(exposition, "projector_batch_seconds_count", { read_model: "events", role: "projector", pid: String(projector) })).toBeGreaterThan(0);
  expect(sampleOf(exposition, "projector_lag_facts", { read_model: "events", stream: "INGEST" })).toBeGreaterThanOrEqual(0);
  expect(sampleOf(exposition, "nats_reconnects_total", api)).toBe(0);
  expect(exposition).toContain("# TYPE job_runs_total counter");
  for (const child of children) expect(sampleOf(exposition, "process_resident_memory_bytes", { pid: String(child) })).toBeGreaterThan(0);

  process.kill(projector, "SIGKILL");
  const replacement = await replacementOf(projector, children, 100);
  // The parent lowers a child's priority right after forking it: a poll may see the child first.
  await waitUntil("the new child's lower priority", async () => (await niceOf(replacement)) >= 10, 5_000, 20);
  // The write is kept while the new child starts and catches up; until then it answers 503 with
  // Retry-After (read models behind), as the API documents, and a retry then answers 200.
  const renamed = await waitUntil(
    "the rename once the new child caught up",
    async () => {
      const answer = await http.patch("/v1/auth/me", { name: "After restart" }, { token: user.token });
      if (answer.status !== 200 && answer.status !== 503) throw new Error(`PATCH /v1/auth/me answered ${answer.status}`);
      return answer.status === 200 ? answer : undefined;
    },
    60_000,
    500,
  );
  expect(renamed.body.user.name).toBe("After restart");

  await parent.stop("SIGTERM", 30_000);
  expect((await parent.exited).code).toBe(0);
  for (const child of [replacement, ...children.filter((child) => child !== projector)]) {
    await waitUntil("the background children to stop with their parent", () => !alive(child), 10_000, 100);
  }
});

it("does not leave a background child behind when the parent is killed while the child is still starting", { timeout: 120_000 }, async () => {
  config ??= await testConfig();
  await buildOnce();
  const port = await freePort();
  parent = spawnBuilt("apps/main.ts", { ...serviceEnv(config), PORT: String(port), HOST: "127.0.0.1" });
  const children = await bothChildren(60_000);
  const first = children[0]!;
  process.kill(first, "SIGKILL");
  // The parent is killed as soon as the replacement exists, most often before the replacement has
  // finished loading (when it has, the test passes either way: it cannot fail falsely).
  const replacement = await replacementOf(first, children, 5);
  await parent.stop("SIGKILL");
  for (const child of [replacement, children[1]!]) {
    await waitUntil("the orphaned background children to stop", () => !alive(child), 15_000, 100);
  }
});

it("ends with one line naming a configuration mistake, not a stack trace", { timeout: 60_000 }, async () => {
  config ??= await testConfig();
  await buildOnce();
  const started = spawnBuilt("apps/main.ts", { ...serviceEnv(config), PORT: "not-a-port" });
  expect((await started.exited).code).toBe(1);
  expect(started.output().trim()).toBe("invalid configuration: PORT Expected number, received nan");
});
