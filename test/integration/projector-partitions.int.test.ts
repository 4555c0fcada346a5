import { rm } from "node:fs/promises";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import pino from "pino";
import type { Config } from "../../apps/config.ts";
import { factSourceOf } from "../../apps/projector/fact-source.ts";
import { replay } from "../../projections/_runtime/replay.ts";
import { projectionNamed } from "../../projections/registry.ts";
import { partitionLockName, partitionOfSubject } from "../../projections/_runtime/fact-partitions.ts";
import { stepEvent } from "../support/analytics.ts";
import { projectWithApp } from "../support/catalog.ts";
import { ingest } from "../support/events.ts";
import { client, type Client } from "../support/http.ts";
import { cleanUp, spawnTsx, waitUntil, type OwnedProcess } from "../support/processes.ts";
import { dropDatabase, serviceEnv, startTestService, testConfig, type TestService } from "../support/service.ts";
import { dropStreams } from "../support/streams.ts";
import { signIn } from "../support/users.ts";

/**
 * INGEST_PARTITIONS=4: every INGEST read model is applied in four partitions by project, shared
 * by the projector instances running. The API and worker run in this process; the projectors are
 * child processes, so one can be SIGKILLed. While batches keep coming: a first instance takes all
 * four partitions, a second one started mid-run gets half of them, and when the first is killed
 * the second takes them all. Every acknowledged event is then in the events read model exactly once.
 */

const PARTITIONS = 4;
const PROJECTS = 8;

let config: Config;
let service: TestService | undefined;
let http: Client;
let admin: pg.Client;
const projectors = new Map<string, OwnedProcess>();

beforeAll(async () => {
  config = await testConfig({ INGEST_PARTITIONS: String(PARTITIONS) });
  // No projector in this process: the child processes are the only projector instances.
  service = await startTestService(config, ["api", "worker"]);
  http = client(service.baseUrl);
  admin = new pg.Client({ connectionString: config.databaseUrl });
  await admin.connect();
}, 60_000);

afterAll(async () => {
  await cleanUp([
    () => Promise.all([...projectors.values()].map((child) => child.stop("SIGKILL"))),
    () => admin?.end().catch(() => undefined),
    async () => {
      if (!service) return;
      await dropStreams(service.log).catch(() => undefined);
      await service.close();
    },
    () => config && dropDatabase(config.databaseUrl).catch(() => undefined),
    () => config && rm(config.mailOutboxDir, { recursive: true, force: true }),
  ]);
});

function startProjector(name: string): OwnedProcess {
  const url = new URL(config.databaseUrl);
  url.searchParams.set("application_name", name);
  const child = spawnTsx("apps/projector/main.ts", { ...serviceEnv(config), DATABASE_URL: url.toString(), INGEST_PARTITIONS: String(PARTITIONS) });
  projectors.set(name, child);
  return child;
}

/** Which instance (by application name) holds each partition lock of the events read model now. */
async function eventsPartitionHolders(): Promise<Map<number, string>> {
  const names = Array.from({ length: PARTITIONS }, (_, partition) => partitionLockName("events", partition));
  // pg_advisory_lock(bigint) shows its key as classid (high 32 bits) and objid (low 32 bits).
  const { rows } = await admin.query<{ name: string; holder: string }>(
    `select n.name, a.application_name as holder
       from unnest($1::text[]) as n(name)
       join pg_locks l on l.locktype = 'advisory' and l.granted and l.objsubid = 1
        and l.database = (select oid from pg_database where datname = current_database())
        and l.classid = ((hashtext(n.name)::bigint >> 32) & 4294967295)::oid
        and l.objid = (hashtext(n.name)::bigint & 4294967295)::oid
       join pg_stat_activity a on a.pid = l.pid`,
    [names],
  );
  return new Map(rows.map((row) => [names.indexOf(row.name), row.holder]));
}

const countsOf = (holders: Map<number, string>) => {
  const counts: Record<string, number> = {};
  for (const holder of holders.values()) counts[holder] = (counts[holder] ?? 0) + 1;
  return counts;
};

it("shares the partitions between instances, rebalances when one joins, takes over a killed one's, and applies every event once", { timeout: 180_000 }, async () => {
  startProjector("projector-a");
  const owner = await signIn(http, config.mailOutboxDir);
  const targets: Awaited<ReturnType<typeof projectWithApp>>[] = [];
  for (let index = 0; index < PROJECTS; index += 1) targets.push(await projectWithApp(http, owner.token, owner.teamId));
  const partitionsUsed = new Set(targets.map((target) => partitionOfSubject(service!.log.names.ingestSubject(target.project.id, target.app.id), PARTITIONS)));
  expect(partitionsUsed.size).toBeGreaterThan(1);

  // Steady traffic: one batch of 10 funnel step events per project in turn, each event id recorded
  // once acknowledged. Funnel summaries count every step event they apply (no dedup hides a fact
  // applied twice), the events read model keeps each once.
  const acknowledged = new Set<string>();
  const statuses: number[] = [];
  let sending = true;
  const load = (async () => {
    for (let turn = 0; sending; turn += 1) {
      const target = targets[turn % targets.length]!;
      const events = Array.from({ length: 10 }, (_, index) => stepEvent(`step-${index % 3}`, `user-${turn}`, new Date().toISOString()));
      const answer = await ingest(http, target.clientKey, { bundle_id: target.app.bundle_id, events });
      statuses.push(answer.status);
      if (answer.status === 200) for (const event of events) acknowledged.add(event.client_event_id);
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();

  try {
    await waitUntil("instance a to hold all four partitions", async () => countsOf(await eventsPartitionHolders())["projector-a"] === PARTITIONS, 60_000, 250);

    startProjector("projector-b");
    await waitUntil(
      "the partitions to be shared two and two",
      async () => {
        const counts = countsOf(await eventsPartitionHolders());
        return counts["projector-a"] === 2 && counts["projector-b"] === 2;
      },
      60_000,
      250,
    );

    await projectors.get("projector-a")!.stop("SIGKILL");
    await waitUntil("instance b to take over every partition", async () => countsOf(await eventsPartitionHolders())["projector-b"] === PARTITIONS, 30_000, 250);
  } finally {
    sending = false;
    await load;
  }

  // The service answered every batch (a 503 while projecting lags would be allowed, none other).
  expect(statuses.filter((status) => status !== 200 && status !== 503 && status !== 429)).toEqual([]);
  expect(acknowledged.size).toBeGreaterThan(100);

  await waitUntil(
    "every partition of every INGEST read model to reach the stream's head",
    async () => {
      const ready = await http.get("/readyz");
      const ingestModels = ready.body.projections.filter((projection: any) => projection.stream === "INGEST");
      return ingestModels.length > 0 && ingestModels.every((projection: any) => projection.lag === 0 && projection.partitions.length === PARTITIONS);
    },
    60_000,
    250,
  );
  const { rows } = await admin.query<{ rows: string; distinct_ids: string }>(
    "select count(*) as rows, count(distinct client_event_id) as distinct_ids from events where client_event_id = any($1::uuid[])",
    [[...acknowledged]],
  );
  expect(Number(rows[0]!.rows)).toBe(acknowledged.size);
  expect(Number(rows[0]!.distinct_ids)).toBe(acknowledged.size);
  const steps = await admin.query<{ applied: string }>(
    "select sum(c) as applied from funnel_user_days, unnest(counts) as c where project_id = any($1::uuid[])",
    [targets.map((target) => target.project.id)],
  );
  expect(Number(steps.rows[0]!.applied)).toBe(acknowledged.size);

  // Each partition's checkpoint row moved with the stream; the read model stands at their lowest.
  const checkpoints = await admin.query<{ partition: number; partitions: number }>(
    "select partition, partitions from projection_checkpoints where projection = 'events' order by partition",
  );
  expect(checkpoints.rows).toEqual(Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, partitions: PARTITIONS })));

  // A replay rebuilds the read model in one pass and hands a generation split the same way to the
  // running instance, which goes on from there.
  const generation = await replay(
    { source: factSourceOf(service!.log), pool: service!.pool, databaseUrl: config.databaseUrl, logger: pino({ level: "silent" }), partitions: PARTITIONS },
    projectionNamed("funnel_events"),
  );
  const replayed = await admin.query<{ partitions: number; seqs: number }>(
    "select count(*)::int as partitions, count(distinct last_seq)::int as seqs from projection_checkpoints where projection = 'funnel_events' and generation = $1",
    [generation],
  );
  expect(replayed.rows[0]).toEqual({ partitions: PARTITIONS, seqs: 1 });
  const rebuilt = await admin.query<{ applied: string }>(
    "select sum(c) as applied from funnel_user_days, unnest(counts) as c where project_id = any($1::uuid[])",
    [targets.map((target) => target.project.id)],
  );
  expect(Number(rebuilt.rows[0]!.applied)).toBe(acknowledged.size);
  const more = Array.from({ length: 10 }, () => stepEvent("step-0", "user-after-replay", new Date().toISOString()));
  expect((await ingest(http, targets[0]!.clientKey, { bundle_id: targets[0]!.app.bundle_id, events: more })).status).toBe(200);
  await waitUntil(
    "the replayed generation to apply a new batch",
    async () => {
      const after = await admin.query<{ applied: string }>("select sum(c) as applied from funnel_user_days, unnest(counts) as c where project_id = $1", [targets[0]!.project.id]);
      return Number(after.rows[0]!.applied) > 0 && (await http.get("/readyz")).body.projections.every((projection: any) => projection.lag === 0);
    },
    30_000,
    250,
  );
  const final = await admin.query<{ applied: string }>("select sum(c) as applied from funnel_user_days, unnest(counts) as c where project_id = any($1::uuid[])", [
    targets.map((target) => target.project.id),
  ]);
  expect(Number(final.rows[0]!.applied)).toBe(acknowledged.size + more.length);
});
