import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { projectWithApp } from "../support/catalog.ts";
import { client } from "../support/http.ts";
import { NatsServer } from "../support/nats-server.ts";
import { PostgresServer } from "../support/postgres-server.ts";
import { cleanUp, waitUntil } from "../support/processes.ts";
import { startTestService, testConfig, type TestService } from "../support/service.ts";
import { dropStreams } from "../support/streams.ts";
import { signIn } from "../support/users.ts";

/**
 * Nothing acknowledged is lost: batches are acknowledged while no projector runs, then NATS is
 * killed and Postgres crashes, both come back, and a projector started afterwards must store every
 * acknowledged event exactly once (including a batch the SDK re-sent after a lost answer).
 */

/** Within the key's 100-token bucket, so the rate limit never answers. */
const BATCHES = 40;
const PER_BATCH = 100;

let nats: NatsServer;
let postgres: PostgresServer;
const services: TestService[] = [];

beforeAll(async () => {
  [nats, postgres] = await Promise.all([NatsServer.start(), PostgresServer.start()]);
});

afterAll(async () => {
  await cleanUp([
    () => services[0] && dropStreams(services[0].log).catch(() => undefined),
    ...services.map((service) => () => service.close()),
    () => nats?.dispose(),
    () => postgres?.dispose(),
    ...services.map((service) => () => rm(service.outbox, { recursive: true, force: true })),
  ]);
});

const batch = (bundleId: string, ids: string[]) => ({
  bundle_id: bundleId,
  events: ids.map((id, index) => ({ message: `event ${index}`, level: "info", session_id: randomUUID(), client_event_id: id, environment: "web" })),
});

it("stores every event acknowledged while the projector was down, once, across NATS and Postgres crashes", async () => {
  const config = await testConfig({ DATABASE_URL: postgres.url("durability"), NATS_URL: nats.url });
  const setup = await startTestService(config);
  services.push(setup);
  const setupHttp = client(setup.baseUrl);
  const owner = await signIn(setupHttp, setup.outbox);
  const { app, clientKey } = await projectWithApp(setupHttp, owner.token, owner.teamId, { platform: "web", bundle_id: "example.com" });
  await setup.close();

  // The API alone: facts are acknowledged by JetStream, nothing projects them yet.
  const api = await startTestService(config, ["api"]);
  services.push(api);
  const http = client(api.baseUrl);
  const acknowledged: string[] = [];
  let resent: string[] = [];
  for (let index = 0; index < BATCHES; index += 1) {
    const ids = Array.from({ length: PER_BATCH }, () => randomUUID());
    const answer = await http.post("/v1/ingest", batch("example.com", ids), { token: clientKey });
    expect(answer.status).toBe(200);
    expect(answer.body.accepted).toBe(PER_BATCH);
    acknowledged.push(...ids);
    if (index === 7) resent = ids;
  }
  // An SDK that lost an answer sends the same batch again.
  expect((await http.post("/v1/ingest", batch("example.com", resent), { token: clientKey })).status).toBe(200);
  await api.close();

  await nats.stop("SIGKILL");
  await postgres.stop("immediate");
  await Promise.all([nats.restart(), postgres.restart()]);

  const projector = await startTestService(config, ["projector"]);
  services.push(projector);
  const db = new pg.Client({ connectionString: config.databaseUrl });
  await db.connect();
  try {
    const stored = await waitUntil(
      "every acknowledged event to be projected",
      async () => {
        const { rows } = await db.query<{ count: string }>("select count(*) from events where app_id = $1", [app.id]);
        return Number(rows[0]!.count) >= acknowledged.length ? Number(rows[0]!.count) : false;
      },
      60_000,
      200,
    );
    expect(stored).toBe(acknowledged.length);
    const { rows } = await db.query<{ client_event_id: string; copies: string }>(
      "select client_event_id, count(*) as copies from events where app_id = $1 group by 1",
      [app.id],
    );
    expect(rows.every((row) => Number(row.copies) === 1)).toBe(true);
    expect(new Set(rows.map((row) => row.client_event_id))).toEqual(new Set(acknowledged));
  } finally {
    await db.end();
  }
});
