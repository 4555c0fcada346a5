import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pino from "pino";
import { sql, type DatabasePool } from "slonik";
import { z } from "zod";
import { afterAll, beforeAll, expect, it } from "vitest";
import { scratchDatabase } from "../../test/support/scratch-database.ts";
import { applyBatch } from "./apply-batch.ts";
import { migrate } from "./migrate.ts";
import type { Projection } from "./projection.ts";

const database = scratchDatabase("apply");
let pool: DatabasePool;
let migrations: string;
const seen: { commit: string; path: string }[] = [];

/** A read model with no tables that records the settings its batches run under. */
const probe = (): Projection => ({
  name: "probe",
  stream: "DOMAIN",
  migrationsDir: pathToFileURL(`${migrations}/`),
  apply: async (tx) => {
    seen.push(await tx.one(sql.type(z.object({ commit: z.string(), path: z.string() }))`
      select current_setting('synchronous_commit') as commit, current_setting('search_path') as path`));
  },
});

beforeAll(async () => {
  migrations = await mkdtemp(join(tmpdir(), "probe-migrations-"));
  await migrate(database.url, [probe()]);
  pool = database.pool();
});

afterAll(async () => {
  await rm(migrations, { recursive: true, force: true });
});

it("applies a batch with its checkpoint in a transaction that does not wait for the WAL flush, in the generation's schema", async () => {
  const fact = { seq: 1, subject: "t.d.probe.1", data: new TextEncoder().encode("{}") };
  expect(await applyBatch(pool, { projection: probe(), generation: 1 }, 0, [fact], pino({ level: "silent" }), { requireActive: true })).toBe(1);
  expect(seen).toEqual([{ commit: "off", path: "rm_probe_g1, public" }]);
  // Only that transaction: the pool's sessions keep the server's setting.
  expect(await pool.oneFirst(sql.type(z.object({ commit: z.string() }))`select current_setting('synchronous_commit') as commit`)).toBe("on");
  expect(await pool.oneFirst(sql.type(z.object({ last: z.number() }))`select last_seq as last from projection_checkpoints where projection = 'probe'`)).toBe(1);
});
