import type { DatabasePool } from "slonik";
import { afterAll, beforeAll } from "vitest";
import { ensureDatabase, openPool } from "../../projections/_runtime/database.ts";
import { dropDatabase, isolatedDatabaseUrl } from "./service.ts";

/**
 * A database of its own for one test file, for tests of read-model SQL below the projector: created
 * before the file's tests (and before its own `beforeAll` hooks, registered after this call), its
 * pool (of `poolSize` connections) closed and the database dropped after them. `pool()` is its pool
 * while the tests run.
 */
export function scratchDatabase(prefix: string, poolSize = 2): { url: string; pool: () => DatabasePool } {
  const url = isolatedDatabaseUrl(prefix);
  let pool: DatabasePool | undefined;
  beforeAll(async () => {
    await ensureDatabase(url);
    pool = await openPool(url, poolSize);
  });
  afterAll(async () => {
    await pool?.end();
    await dropDatabase(url);
  });
  return {
    url,
    pool: () => {
      if (!pool) throw new Error("the scratch database is opened in beforeAll");
      return pool;
    },
  };
}
