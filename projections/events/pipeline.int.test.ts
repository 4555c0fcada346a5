import pg from "pg";
import { sql, type DatabasePool } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { scratchDatabase } from "../../test/support/scratch-database.ts";
import { StatementPipeline, type Statement } from "./pipeline.ts";

const database = scratchDatabase("pipeline");
let pool: DatabasePool;
/** A second session, outside the pipeline's transaction, that holds the lock statements wait on. */
let holder: pg.Client;

beforeAll(async () => {
  pool = database.pool();
  await pool.query(sql.unsafe`create table written (position serial, label text not null)`);
  holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
});

afterAll(async () => {
  await holder?.end();
});

const noPartitions = { months: new Set<string>(), dedupDays: new Set<string>(), maxReceivedMs: 0 };
const write = (label: string): Statement => ({ query: sql.unsafe`insert into written (label) values (${label})`, needs: noPartitions });
/** A statement that cannot finish while `holder` holds advisory lock `key`. */
const writeAfterLock = (label: string, key: number): Statement => ({
  query: sql.unsafe`insert into written (label) select ${label} from pg_advisory_xact_lock(${key})`,
  needs: noPartitions,
});
const labels = () => pool.anyFirst(sql.type(z.object({ label: z.string() }))`select label from written order by position`);

describe("StatementPipeline", () => {
  it("returns from send while the statement runs, then runs the next after it, in order", async () => {
    await holder.query("select pg_advisory_lock(1)");
    await pool.transaction(async (tx) => {
      const pipeline = new StatementPipeline(tx);
      // Resolves although the statement is still waiting for the lock: the caller may prepare the next one.
      await pipeline.send(writeAfterLock("first", 1));
      const second = pipeline.send(write("second"));
      await holder.query("select pg_advisory_unlock(1)");
      await second;
      await pipeline.drain();
    });
    expect(await labels()).toEqual(["first", "second"]);
    const settings = await pool.transaction(async (tx) => {
      const pipeline = new StatementPipeline(tx);
      await pipeline.drain();
      return tx.one(sql.type(z.object({ bitmaps: z.string(), jit: z.string() }))`
        select current_setting('enable_bitmapscan') as bitmaps, current_setting('jit') as jit`);
    });
    expect(settings).toEqual({ bitmaps: "off", jit: "off" });
  });

  it("reports a failed statement at the next send and at drain, and sends nothing after it", async () => {
    await pool.query(sql.unsafe`truncate written`);
    const outcome = pool.transaction(async (tx) => {
      const pipeline = new StatementPipeline(tx);
      await pipeline.send({ query: sql.unsafe`select 1 / 0`, needs: noPartitions });
      await expect(pipeline.send(write("after the failure"))).rejects.toThrow(/division by zero/);
      await pipeline.drain();
    });
    await expect(outcome).rejects.toThrow(/division by zero/);
    expect(await labels()).toEqual([]);
  });
});
