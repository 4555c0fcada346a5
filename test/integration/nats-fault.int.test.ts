import { rm } from "node:fs/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectOnlyOkOrUnavailable, FaultTraffic, isUnavailable, projectorsCaughtUp, readyAgain, writeThroughOutage } from "../support/fault-traffic.ts";
import type { Client } from "../support/http.ts";
import { NatsServer } from "../support/nats-server.ts";
import { cleanUp } from "../support/processes.ts";
import { startWithClient, stopTestService, testConfig, type TestService } from "../support/service.ts";
import { signIn, uniqueEmail } from "../support/users.ts";

/**
 * The service runs against a nats-server this file owns. While many writes are in flight the
 * server is killed and restarted on the same port and store. Every request must end in a 2xx or
 * a 503 with {error} within a bound, every acknowledged write must be in the read models, and
 * the same service process must take writes again once NATS is back.
 */

/** No request may take longer: publish retries (3 × 4 s) plus the read-your-writes wait (10 s) fit inside. */
const REQUEST_BOUND_MS = 30_000;
const OUTAGE_MS = 5_000;

let nats: NatsServer;
const services: TestService[] = [];
const admins: pg.Client[] = [];

async function startService(): Promise<{ service: TestService; http: Client; admin: pg.Client }> {
  const { service, http } = await startWithClient(await testConfig({ NATS_URL: nats.url, READ_YOUR_WRITES_TIMEOUT_MS: "10000" }));
  services.push(service);
  const admin = new pg.Client({ connectionString: service.databaseUrl });
  await admin.connect();
  admins.push(admin);
  return { service, http, admin };
}

beforeAll(async () => {
  nats = await NatsServer.start();
});

afterAll(async () => {
  await cleanUp([
    // Closing a service drains its NATS connection, which needs the server up.
    () => nats && !nats.running && nats.restart(),
    () => Promise.all(admins.map((admin) => admin.end().catch(() => undefined))),
    ...services.map((service) => () => stopTestService(service)),
    () => nats?.dispose(),
    ...services.map((service) => () => rm(service.outbox, { recursive: true, force: true })),
  ]);
});

describe("NATS restart", () => {
  it("answers every write 2xx or 503 through a NATS crash, keeps every acknowledged write and recovers without a restart", async () => {
    const { service, http, admin } = await startService();
    const writers = await Promise.all(Array.from({ length: 10 }, () => signIn(http, service.outbox)));
    const traffic = new FaultTraffic(service, writers, REQUEST_BOUND_MS);
    const outage = await writeThroughOutage(traffic, () => nats.stop("SIGKILL"), () => nats.restart(), OUTAGE_MS);

    // 1. Every request ended within the bound in a 2xx or a 503 {error}: never a 500, never hung.
    // The outage was real: requests were in flight while the server was down.
    expectOnlyOkOrUnavailable(traffic, outage);

    // 2. After NATS is back the same service process takes new writes at the first attempt.
    await readyAgain(http);
    const writer = writers[0]!;
    const renamed = await http.patch("/v1/auth/me", { name: "after the outage" }, { token: writer.token });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    traffic.renames.get(writer.userId)!.push({ name: "after the outage", acknowledged: true });
    const team = await http.post("/v1/teams", { name: "After", slug: `after-${writer.userId.slice(0, 8)}` }, { token: writer.token });
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    traffic.createdTeams.push({ id: team.body.id, owner: writer.userId });
    const fresh = await signIn(http, service.outbox);
    traffic.signedUp.push({ userId: fresh.userId, teamId: fresh.teamId });

    // 3. Every acknowledged write is in the read models, and the projectors are at the head.
    await projectorsCaughtUp(service, admin);
    expect(await traffic.missingWrites(admin)).toEqual([]);
    console.info(`nats-fault (SIGKILL, ${OUTAGE_MS} ms down): ${traffic.summary()}`);
  });

  it.each(["SIGKILL", "SIGTERM"] as const)("recovers an idle service after a %s: projectors follow new facts, KV buckets open", async (signal) => {
    // A fresh service whose projectors wait on an empty stream and whose KV buckets were never used.
    const { service, http, admin } = await startService();
    await nats.stop(signal);
    const traffic = new FaultTraffic(service, [], REQUEST_BOUND_MS);
    const down = await traffic.call("send-code while NATS is down", "POST", "/v1/auth/send-code", { email: uniqueEmail("down") });
    expect(isUnavailable(down), JSON.stringify(down)).toBe(true);
    await nats.restart();
    await readyAgain(http);

    // A sign-up answers only once both read models show it (read-your-writes, 10 s bound), so it
    // fails with 503 if the projectors do not resume reading after the reconnect.
    const started = Date.now();
    const user = await signIn(http, service.outbox);
    expect(user.body.is_new_user).toBe(true);
    const renamed = await http.patch("/v1/auth/me", { name: "Back" }, { token: user.token });
    expect(renamed.status).toBe(200);
    expect(renamed.body.user.name).toBe("Back");
    await projectorsCaughtUp(service, admin);
    console.info(`nats-fault (${signal}, idle): sign-up and rename after the restart took ${Date.now() - started} ms`);
  });
});
