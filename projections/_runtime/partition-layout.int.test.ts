import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import pino from "pino";
import { sql, type DatabasePool } from "slonik";
import { afterAll, beforeAll, expect, it } from "vitest";
import { scratchDatabase } from "../../test/support/scratch-database.ts";
import { applyBatch } from "./apply-batch.ts";
import { partitionLockName, partitionOfSubject } from "./fact-partitions.ts";
import { migrate } from "./migrate.ts";
import { arrangePartitions } from "./partition-layout.ts";
import { ProgressWatcher } from "./progress.ts";
import type { Fact, Projection } from "./projection.ts";

const database = scratchDatabase("layout");
const quiet = pino({ level: "silent" });
let pool: DatabasePool;
let migrations: string;
const applied: Fact[] = [];

/** An INGEST read model with no tables that records the facts it is given. */
const probe = (): Projection => ({
  name: "probe_split",
  stream: "INGEST",
  migrationsDir: pathToFileURL(`${migrations}/`),
  apply: async (_tx, facts) => void applied.push(...facts),
});

beforeAll(async () => {
  migrations = await mkdtemp(join(tmpdir(), "probe-migrations-"));
  await migrate(database.url, [probe()]);
  pool = database.pool();
});

afterAll(async () => {
  await rm(migrations, { recursive: true, force: true });
});

const layout = async () =>
  (await pool.any(sql.unsafe`select partition, partitions, last_seq from projection_checkpoints where projection = 'probe_split' order by partition`)).map(
    (row) => [row.partition, row.partitions, Number(row.last_seq)],
  );

const moveTo = (seqs: number[]) =>
  Promise.all(seqs.map((seq, partition) => pool.query(sql.unsafe`update projection_checkpoints set last_seq = ${seq} where projection = 'probe_split' and partition = ${partition}`)));

it("splits an unsplit read model at its checkpoint, and re-splits only partitions that stand together and are not being applied", async () => {
  expect(await layout()).toEqual([[0, 1, 0]]);
  await moveTo([5]);
  await arrangePartitions(database.url, [probe()], 4, quiet);
  expect(await layout()).toEqual([0, 1, 2, 3].map((partition) => [partition, 4, 5]));

  // Partitions at different sequences: splitting them again would skip or repeat facts.
  await moveTo([5, 6, 5, 5]);
  await arrangePartitions(database.url, [probe()], 2, quiet);
  expect((await layout()).length).toBe(4);

  // Level again, but an instance holds one partition's lock: it is applying.
  await moveTo([9, 9, 9, 9]);
  const instance = new pg.Client({ connectionString: database.url });
  await instance.connect();
  await instance.query("select pg_advisory_lock(hashtext($1))", [partitionLockName("probe_split", 3)]);
  await arrangePartitions(database.url, [probe()], 2, quiet);
  expect((await layout()).length).toBe(4);
  await instance.end();

  await arrangePartitions(database.url, [probe()], 2, quiet);
  expect(await layout()).toEqual([
    [0, 2, 9],
    [1, 2, 9],
  ]);
});

it("applies each partition's own facts, moves its checkpoint past the others', and reports the lowest checkpoint as the read model's position", async () => {
  await arrangePartitions(database.url, [probe()], 2, quiet);
  await moveTo([0, 0]);
  const facts: Fact[] = Array.from({ length: 40 }, (_, index) => ({ seq: index + 1, subject: `ns.i.project-${index % 7}.app`, data: new Uint8Array() }));
  const watcher = new ProgressWatcher(database.url, quiet);
  await watcher.start();
  try {
    applied.length = 0;
    const target = { projection: probe(), generation: 1, partition: 0, partitions: 2 };
    expect(await applyBatch(pool, target, 0, facts, quiet, { requireActive: true })).toBe(40);
    expect(applied.map((fact) => fact.seq)).toEqual(facts.filter((fact) => partitionOfSubject(fact.subject, 2) === 0).map((fact) => fact.seq));
    // Partition 1 has applied nothing yet: the read model is not past sequence 0.
    expect(await watcher.waitFor(["probe_split"], 1, 300)).toBe(false);

    const waiting = watcher.waitFor(["probe_split"], 25, 5_000);
    expect(await applyBatch(pool, { ...target, partition: 1 }, 0, facts.slice(0, 25), quiet, { requireActive: true })).toBe(25);
    expect(await waiting).toBe(true);
    expect(watcher.position("probe_split")).toBe(25);
    expect(applied.length).toBe(40 - facts.filter((fact) => partitionOfSubject(fact.subject, 2) === 1 && fact.seq > 25).length);

    // A runner that still believes in another layout is stopped by the checkpoint's check.
    await expect(applyBatch(pool, { ...target, partition: 1, partitions: 4 }, 25, facts.slice(25), quiet, { requireActive: true })).rejects.toThrow(/split into 2 partitions/);
  } finally {
    await watcher.stop();
  }
});
