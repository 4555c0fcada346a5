import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pino from "pino";
import { sql, type DatabasePool } from "slonik";
import { z } from "zod";
import { afterAll, beforeAll, expect, it } from "vitest";
import { scratchDatabase } from "../../test/support/scratch-database.ts";
import { applyBatch, UNSPLIT } from "./apply-batch.ts";
import { migrate } from "./migrate.ts";
import type { Projection } from "./projection.ts";

const database = scratchDatabase("apply");
let pool: DatabasePool;
let migrations: string;
const seen: { commit: string; path: string }[] = [];

/** A read model of `stream` with no tables that records the settings its batches run under. */
const probe = (stream: Projection["stream"] = "INGEST"): Projection => ({
  name: `probe_${stream.toLowerCase()}`,
  stream,
  migrationsDir: pathToFileURL(`${migrations}/`),
  apply: async (tx) => {
    seen.push(await tx.one(sql.type(z.object({ commit: z.string(), path: z.string() }))`
      select current_setting('synchronous_commit') as commit, current_setting('search_path') as path`));
  },
});

beforeAll(async () => {
  migrations = await mkdtemp(join(tmpdir(), "probe-migrations-"));
  await migrate(database.url, [probe("INGEST"), probe("DOMAIN")]);
  pool = database.pool();
});

afterAll(async () => {
  await rm(migrations, { recursive: true, force: true });
});

it("applies an INGEST read model's batch with its checkpoint in a transaction that does not wait for the WAL flush, in the generation's schema", async () => {
  const fact = { seq: 1, subject: "t.i.probe.1", data: new TextEncoder().encode("{}") };
  seen.length = 0;
  expect(await applyBatch(pool, { projection: probe("INGEST"), generation: 1, ...UNSPLIT }, 0, [fact], pino({ level: "silent" }), { requireActive: true })).toBe(1);
  expect(seen).toEqual([{ commit: "off", path: "rm_probe_ingest_g1, public" }]);
  // Only that transaction: the pool's sessions keep the server's setting.
  expect(await pool.oneFirst(sql.type(z.object({ commit: z.string() }))`select current_setting('synchronous_commit') as commit`)).toBe("on");
  expect(await pool.oneFirst(sql.type(z.object({ last: z.number() }))`select last_seq as last from projection_checkpoints where projection = 'probe_ingest'`)).toBe(1);
});

it("keeps a DOMAIN read model's commits waiting for the WAL flush", async () => {
  const fact = { seq: 1, subject: "t.d.probe.1", data: new TextEncoder().encode("{}") };
  seen.length = 0;
  expect(await applyBatch(pool, { projection: probe("DOMAIN"), generation: 1, ...UNSPLIT }, 0, [fact], pino({ level: "silent" }), { requireActive: true })).toBe(1);
  expect(seen).toEqual([{ commit: "on", path: "rm_probe_domain_g1, public" }]);
});
