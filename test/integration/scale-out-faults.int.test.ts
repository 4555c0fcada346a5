import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Config } from "../../apps/config.ts";
import { connectLog, type Log } from "../../streams/connection.ts";
import { placementOf } from "../../streams/placement.ts";
import { projectWithApp } from "../support/catalog.ts";
import { client } from "../support/http.ts";
import { IngestLoad, type Instance } from "../support/ingest-load.ts";
import { NatsCluster } from "../support/nats-cluster.ts";
import { buildOnce, cleanUp, freePort, readyBeforeExit, spawnBuilt, waitUntil, type OwnedProcess } from "../support/processes.ts";
import { dropDatabase, serviceEnv, testConfig } from "../support/service.ts";
import { dropStreams } from "../support/streams.ts";
import { signIn } from "../support/users.ts";

/**
 * The scale-out deployment under faults, with real processes: a 3-node nats-server cluster with
 * R3 streams, two API instances, two projector instances sharing each INGEST read model's two
 * partitions (INGEST_PARTITIONS=2) and a worker, all built entry points given every node in NATS_URL. While a client ingests steadily through both APIs, one after the
 * other: a NATS node that does not lead INGEST is killed -9 and restarted, then the INGEST leader,
 * then the projector holding the events read model, then an API. Every batch answered 200 must be
 * in the events read model exactly once, every answer must be 2xx, 429 or 503 within the bound
 * (a request in flight to the killed API excepted: its batch is resent to the other), and the
 * cluster must heal with none of our processes restarted.
 */

/** Above the API's worst case for a write: three publish attempts of 4 s each. */
const REQUEST_BOUND_MS = 15_000;
/** Batches acknowledged after each fault, and after each node is back, before the next step. */
const ACKS_PER_STEP = 20;

let cluster: NatsCluster | undefined;
let config: Config | undefined;
let log: Log | undefined;
let admin: pg.Client | undefined;
let attachmentsDir: string | undefined;
const processes = new Map<string, OwnedProcess>();

beforeAll(async () => {
  [cluster] = await Promise.all([NatsCluster.start(3), buildOnce()]);
  attachmentsDir = await mkdtemp(join(tmpdir(), "scale-out-attachments-"));
  config = await testConfig({ NATS_URL: cluster.urls.join(","), STREAM_REPLICAS: "3" });
}, 120_000);

afterAll(async () => {
  await cleanUp([
    () => Promise.all([...processes.values()].map((child) => child.stop("SIGKILL"))),
    () => admin?.end(),
    async () => {
      if (!log) return;
      await dropStreams(log);
      await log.close();
    },
    () => cluster?.dispose(),
    () => config && dropDatabase(config.databaseUrl),
    () => config && rm(config.mailOutboxDir, { recursive: true, force: true }),
    () => attachmentsDir && rm(attachmentsDir, { recursive: true, force: true }),
  ]);
});

/** Starts a built entry point as `name` (its Postgres sessions carry the name as application_name). */
function spawnPart(name: string, entry: string, env: Record<string, string> = {}): OwnedProcess {
  const databaseUrl = new URL(config!.databaseUrl);
  databaseUrl.searchParams.set("application_name", name);
  const child = spawnBuilt(entry, {
    ...serviceEnv(config!),
    STREAM_REPLICAS: "3",
    // The two projector instances share each INGEST read model's two partitions.
    INGEST_PARTITIONS: "2",
    DATABASE_URL: databaseUrl.toString(),
    ATTACHMENTS_DIR: attachmentsDir!,
    ...env,
  });
  processes.set(name, child);
  return child;
}

async function startApi(name: string): Promise<Instance> {
  const port = await freePort();
  const child = spawnPart(name, "apps/api/main.ts", { PORT: String(port), HOST: "127.0.0.1" });
  const url = `http://127.0.0.1:${port}`;
  const ready = waitUntil(`${name} to be ready`, async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200, 60_000, 200);
  await readyBeforeExit(child, name, ready);
  return { name, url };
}

/** Sessions of `name` in Postgres: a projector's lock connection once it started. */
async function sessionsOf(name: string): Promise<number> {
  const { rows } = await admin!.query<{ n: string }>("select count(*) as n from pg_stat_activity where application_name = $1", [name]);
  return Number(rows[0]!.n);
}

/**
 * The advisory locks the process `name` holds, as their bigint keys: a projector holds one per
 * read model it runs (`projector:<model>`, or one per partition), the other instances wait on them.
 * Table maintenance's lock is left out: it is held only for a round.
 */
async function locksHeldBy(name: string): Promise<string[]> {
  const { rows } = await admin!.query<{ key: string }>(
    `select ((l.classid::bigint << 32) | l.objid::bigint)::text as key from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and a.application_name = $1
        and ((l.classid::bigint << 32) | l.objid::bigint) <> hashtext('table-maintenance')::bigint
      order by 1`,
    [name],
  );
  return rows.map((row) => row.key);
}

/** The key of the advisory lock of the events read model (of its first partition, when it is split). */
async function eventsLockKey(): Promise<string> {
  const { rows } = await admin!.query<{ key: string }>("select hashtext('projector:events')::bigint::text as key");
  return rows[0]!.key;
}

/** The server leading INGEST, once there is one other than `not` (asked through the test's own connection, which fails over too). */
const ingestLeader = (not?: string): Promise<string> =>
  waitUntil(
    not === undefined ? "an INGEST leader" : `an INGEST leader other than ${not}`,
    async () => {
      const { leader } = await placementOf(log!, { stream: "INGEST" });
      return leader !== not && leader;
    },
    30_000,
    100,
  );

async function kill(name: string): Promise<void> {
  const child = processes.get(name)!;
  child.child.kill("SIGKILL");
  expect((await child.exited).signal).toBe("SIGKILL");
}

it("keeps every acknowledged batch exactly once through NATS node, stream leader, projector and API crashes", { timeout: 240_000 }, async () => {
  const started = Date.now();
  const timings: string[] = [];
  const mark = (what: string) => timings.push(`${what} at ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // The first API creates the database, runs the migrations and creates the streams with three
  // replicas; the other processes start together after it.
  const api1 = await startApi("api-1");
  admin = new pg.Client({ connectionString: config!.databaseUrl });
  await admin.connect();
  const [api2] = await Promise.all([startApi("api-2"), spawnPart("projector-1", "apps/projector/main.ts"), spawnPart("projector-2", "apps/projector/main.ts"), spawnPart("worker", "apps/worker/main.ts")]);
  await waitUntil("both projectors to connect", async () => (await sessionsOf("projector-1")) > 0 && (await sessionsOf("projector-2")) > 0, 60_000, 200);
  log = await connectLog(cluster!.urls, config!.namespace, pino({ level: "silent" }));
  expect((await placementOf(log, { stream: "INGEST" })).replicas).toBe(3);
  await cluster!.waitForStreamsCurrent();
  mark("all processes up");

  const http = client(api1.url);
  const owner = await signIn(http, config!.mailOutboxDir);
  const { app, clientKey } = await projectWithApp(http, owner.token, owner.teamId);
  const load = new IngestLoad([api1, api2!], clientKey, app.bundle_id, { requestBoundMs: REQUEST_BOUND_MS });
  const acksAfter = (at: number, what: string) => waitUntil(`${ACKS_PER_STEP} batches acknowledged ${what}`, () => load.acknowledgedSince(at) >= ACKS_PER_STEP, 60_000, 50);
  let survivor = "";
  const outputs = () => [...processes].map(([name, child]) => `--- ${name}\n${child.output().slice(-2_000)}`).join("\n");
  const failure = (error: Error) =>
    new Error(`${error.message}\n${load.summary()}\n${timings.join("\n")}\nunexpected: ${JSON.stringify(load.unexpected().slice(0, 5))}\n${outputs()}`);

  /** Restarts a killed node, waits until it has caught up, and until batches are acknowledged again. */
  const bringBack = async (node: string) => {
    await cluster!.restart(node);
    const at = Date.now();
    await cluster!.waitForJetStream();
    await cluster!.waitForStreamsCurrent();
    mark(`${node} back and current`);
    await acksAfter(at, `after ${node} came back`);
  };

  try {
    load.start();
    await acksAfter(started, "before any fault");
    mark("load running");

    // a. A node that does not lead INGEST: the leader keeps a quorum with the third node.
    const before = await ingestLeader();
    const follower = cluster!.names.find((name) => name !== before)!;
    let at = Date.now();
    await cluster!.stop(follower, "SIGKILL");
    mark(`${follower} (follower) killed`);
    await acksAfter(at, `with ${follower} down`);
    await bringBack(follower);

    // b. The INGEST leader: the two others elect a new one; appends answer 503 until then.
    const leader = await ingestLeader();
    at = Date.now();
    await cluster!.stop(leader, "SIGKILL");
    mark(`${leader} (INGEST leader) killed`);
    const elected = await ingestLeader(leader);
    mark(`${elected} elected`);
    await acksAfter(at, `with ${leader} down`);
    await bringBack(leader);

    // c. The projector instance holding the events read model: the other one, waiting on the
    // advisory locks, takes over every read model it held.
    const eventsLock = await eventsLockKey();
    const [victim, held] = await waitUntil(
      "a projector to hold the events read model",
      async () => {
        for (const name of ["projector-1", "projector-2"]) {
          const locks = await locksHeldBy(name);
          if (locks.includes(eventsLock)) return [name, locks] as const;
        }
        return undefined;
      },
      20_000,
      100,
    );
    survivor = victim === "projector-1" ? "projector-2" : "projector-1";
    at = Date.now();
    await kill(victim);
    mark(`${victim} killed holding ${held.length} projector locks`);
    const heir = survivor;
    await waitUntil(`${survivor} to hold ${victim}'s read models`, async () => {
      const now = await locksHeldBy(heir);
      return held.every((key) => now.includes(key));
    }, 15_000, 100);
    const takeoverMs = Date.now() - at;
    mark(`${survivor} took over in ${takeoverMs} ms`);
    await acksAfter(at, `after ${victim} was killed`);

    // d. An API instance: out of the rotation, then killed with its requests in flight; their
    // batches are resent to the other one.
    at = Date.now();
    load.retire("api-2");
    await kill("api-2");
    mark("api-2 killed");
    await acksAfter(at, "through api-1 alone");
  } catch (error) {
    throw failure(error as Error);
  } finally {
    await load.stop();
  }
  mark("load stopped");

  // Every answer was 2xx, 429 or 503 within the bound; only requests in flight to the killed API were cut.
  const unexpected = load.unexpected();
  expect(unexpected, `${load.summary()}\n${JSON.stringify(unexpected.slice(0, 5), null, 1)}`).toEqual([]);
  expect(Math.max(...load.outcomes.map((outcome) => outcome.ms))).toBeLessThan(REQUEST_BOUND_MS);
  expect(load.outcomes.filter((outcome) => outcome.cut).every((outcome) => outcome.instance === "api-2")).toBe(true);

  // Healed without a restart of ours: every stream current on three nodes, a new batch taken at
  // the first attempt, /readyz 200 with every read model at the head.
  await cluster!.waitForStreamsCurrent();
  const afterFaults = randomUUID();
  const last = await http.post("/v1/ingest", { bundle_id: app.bundle_id, events: [{ message: "after", level: "info", session_id: randomUUID(), client_event_id: afterFaults, environment: "ios" }] }, { token: clientKey });
  expect(last.status).toBe(200);
  load.acknowledged.push(afterFaults);
  load.sent.add(afterFaults);
  let lastReadiness: unknown;
  const readiness = await waitUntil(
    "api-1's /readyz to show every read model at the head",
    async () => {
      const answer = await http.get("/readyz");
      lastReadiness = answer.body;
      return answer.status === 200 && answer.body.projections.length > 0 && answer.body.projections.every((projection: { lag: number | null }) => projection.lag === 0) && answer.body;
    },
    90_000,
    200,
  ).catch((error: Error) => {
    throw failure(new Error(`${error.message}; the last /readyz: ${JSON.stringify(lastReadiness)}`));
  });
  expect(readiness.status).toBe("ready");
  mark("healed");

  // Exactly once: every acknowledged client_event_id stored once, nothing stored twice, nothing unsent.
  const { rows } = await admin!.query<{ client_event_id: string; copies: string }>(
    "select client_event_id, count(*) as copies from events where app_id = $1 group by 1",
    [app.id],
  );
  const copies = new Map(rows.map((row) => [row.client_event_id, Number(row.copies)]));
  expect(load.acknowledged.filter((id) => copies.get(id) !== 1)).toEqual([]);
  expect(rows.filter((row) => Number(row.copies) !== 1)).toEqual([]);
  expect([...copies.keys()].filter((id) => !load.sent.has(id))).toEqual([]);
  // The processes not killed ran through it all: none of them was restarted.
  for (const name of ["api-1", survivor, "worker"]) {
    const child = processes.get(name)!.child;
    expect({ name, exit: child.exitCode ?? child.signalCode }).toEqual({ name, exit: null });
  }
  console.info(`scale-out-faults: ${load.summary()}; ${copies.size} events stored\n  ${timings.join("\n  ")}`);
});
