import { rm } from "node:fs/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectOnlyOkOrUnavailable, FaultTraffic, projectorsCaughtUp, readyAgain, writeThroughOutage } from "../support/fault-traffic.ts";
import type { Client } from "../support/http.ts";
import { PostgresServer } from "../support/postgres-server.ts";
import { cleanUp, waitUntil } from "../support/processes.ts";
import { startWithClient, testConfig, type TestService } from "../support/service.ts";
import { dropStreams } from "../support/streams.ts";
import { signIn } from "../support/users.ts";

/**
 * The service runs against a PostgreSQL server this file owns (initdb in a temp directory). While
 * writes are in flight the server crashes (immediate shutdown: no checkpoint, crash recovery on the
 * next start) and comes back. Every request must end in a 2xx or a 503 with {error}, no
 * acknowledged write may be lost, and the projectors must resume from their checkpoints.
 */

const REQUEST_BOUND_MS = 30_000;
const OUTAGE_MS = 3_000;

let postgres: PostgresServer;
let service: TestService | undefined;
let http: Client;
const connections: pg.Client[] = [];

async function connectAdmin(): Promise<pg.Client> {
  const connection = new pg.Client({ connectionString: service!.databaseUrl });
  connection.on("error", () => undefined);
  connections.push(connection);
  await connection.connect();
  return connection;
}

beforeAll(async () => {
  postgres = await PostgresServer.start();
  ({ service, http } = await startWithClient(await testConfig({ DATABASE_URL: postgres.url("fault_service"), READ_YOUR_WRITES_TIMEOUT_MS: "10000" })));
});

afterAll(async () => {
  await cleanUp([
    () => Promise.all(connections.map((connection) => connection.end().catch(() => undefined))),
    () => service && dropStreams(service.log).catch(() => undefined),
    () => service?.close(),
    () => postgres?.dispose(),
    () => service && rm(service.outbox, { recursive: true, force: true }),
  ]);
});

describe("PostgreSQL restart", () => {
  it("answers writes 2xx or 503 through a Postgres crash, loses no acknowledged write and resumes projecting", async () => {
    const writers = await Promise.all(Array.from({ length: 8 }, () => signIn(http, service!.outbox)));
    const traffic = new FaultTraffic(service!, writers, REQUEST_BOUND_MS);
    const outage = await writeThroughOutage(traffic, () => postgres.stop("immediate"), () => postgres.restart(), OUTAGE_MS);
    expectOnlyOkOrUnavailable(traffic, outage);

    // The same process serves reads and writes again.
    await readyAgain(http);
    const writer = writers[0]!;
    const renamed = await http.patch("/v1/auth/me", { name: "after the crash" }, { token: writer.token });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    traffic.renames.get(writer.userId)!.push({ name: "after the crash", acknowledged: true });
    const fresh = await signIn(http, service!.outbox);
    traffic.signedUp.push({ userId: fresh.userId, teamId: fresh.teamId });

    // Nothing acknowledged before, during or after the crash is missing; the checkpoints reached the head.
    const admin = await connectAdmin();
    await projectorsCaughtUp(service!, admin);
    expect(await traffic.missingWrites(admin)).toEqual([]);
    const { rows: parked } = await admin.query("select projection, seq, error from parked_facts");
    expect(parked).toEqual([]);
    // At rest the service opens no connections: read-your-writes listens for checkpoint
    // notifications again instead of polling with a new connection five times a second.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const accepted = postgres.connectionsAccepted();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(postgres.connectionsAccepted() - accepted).toBe(0);
    console.info(`postgres-fault (immediate shutdown, ${OUTAGE_MS} ms down): ${traffic.summary()}`);
  });

  it("serves again after a crash that hit every pooled connection in the middle of a query", async () => {
    const user = await signIn(http, service!.outbox);
    // Hold a lock the API's reads wait on, then send more reads than the pool (10 connections) has
    // connections: every pooled connection is inside a query when Postgres goes down.
    const blocker = await connectAdmin();
    await blocker.query("begin");
    await blocker.query("lock table rm_directory_g1.users in access exclusive mode");
    const traffic = new FaultTraffic(service!, [], REQUEST_BOUND_MS);
    const reads = Array.from({ length: 14 }, () => traffic.call("GET /v1/auth/me", "GET", "/v1/auth/me", undefined, user.token));
    await waitUntil("every pooled connection busy and reads waiting for one", () => service!.pool.state().waitingClients > 0, 10_000);
    const { rows: waiting } = await blocker.query<{ n: string }>(
      "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    expect(Number(waiting[0]!.n)).toBeGreaterThan(0);
    await postgres.stop("immediate");
    await postgres.restart();
    await Promise.all(reads);
    const unexpected = traffic.unexpected();
    expect(unexpected, JSON.stringify(unexpected.slice(0, 3))).toEqual([]);

    // The pool must not keep the dead connections: reads and writes work again within seconds.
    await readyAgain(http, 15_000);
    const me = await traffic.call("GET /v1/auth/me", "GET", "/v1/auth/me", undefined, user.token);
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    const renamed = await traffic.call("PATCH /v1/auth/me", "PATCH", "/v1/auth/me", { name: "after the pool crash" }, user.token);
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.user.name).toBe("after the pool crash");
    const state = service!.pool.state();
    expect(state.pendingDestroyConnections, JSON.stringify(state)).toBe(0);
  });
});
