import { rm } from "node:fs/promises";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Config } from "../../apps/config.ts";
import { client, type Client } from "../support/http.ts";
import { PostgresServer } from "../support/postgres-server.ts";
import { cleanUp, waitUntil } from "../support/processes.ts";
import { startTestService, testConfig, type TestService } from "../support/service.ts";
import { dropNamespace } from "../support/streams.ts";
import { signIn } from "../support/users.ts";

/**
 * DATABASE_READ_URL: the API's queries go to a streaming replica (a hot standby made with
 * pg_basebackup), which here applies every commit a second late. A write still reads back at
 * once, because read-your-writes waits for the replica's own copy of the checkpoints.
 */

const APPLY_DELAY_MS = 1_000;
let primary: PostgresServer | undefined;
let replica: PostgresServer | undefined;
let service: TestService | undefined;
let config: Config | undefined;
let http: Client;

beforeAll(async () => {
  primary = await PostgresServer.start();
  replica = await PostgresServer.standbyOf(primary, { applyDelayMs: APPLY_DELAY_MS });
  const base = await testConfig();
  const database = new URL(base.databaseUrl).pathname.slice(1);
  config = await testConfig({ DATABASE_URL: primary.url(database), DATABASE_READ_URL: replica.url(database), NAMESPACE: base.namespace });
  await rm(base.mailOutboxDir, { recursive: true, force: true });
  service = await startTestService(config, ["api", "projector"]);
  http = client(service.baseUrl);
  // The database was created on the primary after the standby was made: the API answers once the standby has it too.
  await waitUntil("the replica to hold the database", async () => (await http.get("/readyz")).status === 200, 60_000, 200);
}, 120_000);

afterAll(async () => {
  await cleanUp([
    () => service?.close(),
    () => config && dropNamespace(config.natsServers, config.namespace),
    () => config && rm(config.mailOutboxDir, { recursive: true, force: true }),
    () => replica?.dispose(),
    () => primary?.dispose(),
  ]);
});

it("reads its writes through a replica that applies them a second late", { timeout: 120_000 }, async () => {
  const owner = await signIn(http, config!.mailOutboxDir);

  const started = performance.now();
  const renamed = await http.patch("/v1/auth/me", { name: "Read from the replica" }, { token: owner.token });
  expect(renamed.status).toBe(200);
  // The answer waited for the replica, which is a second behind the primary.
  expect(performance.now() - started).toBeGreaterThanOrEqual(APPLY_DELAY_MS * 0.9);
  expect((await http.get("/v1/auth/me", { token: owner.token })).body.user.name).toBe("Read from the replica");

  const created = await http.post("/v1/projects", { team_id: owner.teamId, name: "Replicated", slug: "replicated" }, { token: owner.token });
  expect(created.status).toBe(201);
  const listed = await http.get(`/v1/projects?team_id=${owner.teamId}`, { token: owner.token });
  expect(listed.body.projects.map((project: { id: string }) => project.id)).toContain(created.body.id);

  // The reads came from the replica: it served queries, and it is read-only.
  const standby = new pg.Client({ connectionString: config!.databaseReadUrl });
  await standby.connect();
  try {
    expect((await standby.query<{ recovering: boolean }>("select pg_is_in_recovery() as recovering")).rows[0]!.recovering).toBe(true);
    const { rows } = await standby.query<{ count: string }>("select count(*) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
    expect(Number(rows[0]!.count)).toBeGreaterThan(0);
  } finally {
    await standby.end();
  }
});
