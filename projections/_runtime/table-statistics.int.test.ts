import { sql, type DatabasePool } from "slonik";
import { afterAll, beforeAll, expect, it } from "vitest";
import { waitUntil } from "../../test/support/processes.ts";
import { dropDatabase, isolatedDatabaseUrl } from "../../test/support/service.ts";
import { ensureDatabase, openPool } from "./database.ts";
import { analyzeTable, tablesDueForAnalyze } from "./table-statistics.ts";

const databaseUrl = isolatedDatabaseUrl("stats");
let pool: DatabasePool;

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  pool = await openPool(databaseUrl, 2);
  await pool.query(sql.unsafe`create schema rm_items_g1`);
  await pool.query(sql.unsafe`create table rm_items_g1.plain (id int)`);
  await pool.query(sql.unsafe`create table rm_items_g1.monthly (id int, at date) partition by range (at)`);
  await pool.query(sql.unsafe`create table rm_items_g1.monthly_p1 partition of rm_items_g1.monthly for values from ('2026-01-01') to ('2026-02-01')`);
  // Outside the generation schemas: not a read model's table.
  await pool.query(sql.unsafe`create table public.elsewhere (id int)`);
});

afterAll(async () => {
  await pool?.end();
  await dropDatabase(databaseUrl);
});

const due = async () => (await tablesDueForAnalyze(pool, 10)).map(({ schema, table }) => `${schema}.${table}`).sort();

it("names the read-model tables that changed past autovacuum's analyze threshold, and none once analyzed", { timeout: 30_000 }, async () => {
  await pool.query(sql.unsafe`insert into rm_items_g1.plain select g from generate_series(1, 1000) g`);
  await pool.query(sql.unsafe`insert into rm_items_g1.monthly select g, date '2026-01-15' from generate_series(1, 1000) g`);
  await pool.query(sql.unsafe`insert into public.elsewhere select g from generate_series(1, 1000) g`);
  await pool.query(sql.unsafe`insert into rm_items_g1.plain values (1)`);
  // Statistics counters reach the shared view when a backend goes idle, within about a second.
  await waitUntil("the row counts to reach the statistics view", async () => (await due()).length === 2, 10_000, 100);
  // The partition, not its parent, which holds no rows of its own; nothing outside rm_* schemas.
  expect(await due()).toEqual(["rm_items_g1.monthly_p1", "rm_items_g1.plain"]);

  for (const table of await tablesDueForAnalyze(pool, 10)) await analyzeTable(pool, table);
  const analyzed = await pool.anyFirst(sql.unsafe`select relname from pg_stat_user_tables where schemaname = 'rm_items_g1' and last_analyze is not null order by relname`);
  expect(analyzed).toEqual(["monthly_p1", "plain"]);
  await waitUntil("no table to be due", async () => (await due()).length === 0, 10_000, 100);

  // 10% more rows than the table held at its last ANALYZE make it due again; fewer do not.
  await pool.query(sql.unsafe`insert into rm_items_g1.plain select g from generate_series(1, 90) g`);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(await due()).toEqual([]);
  await pool.query(sql.unsafe`insert into rm_items_g1.plain select g from generate_series(1, 100) g`);
  await waitUntil("the grown table to be due", async () => (await due()).includes("rm_items_g1.plain"), 10_000, 100);
});

it("skips a table dropped after it was named", async () => {
  await pool.query(sql.unsafe`create table rm_items_g1.dropped (id int)`);
  await pool.query(sql.unsafe`drop table rm_items_g1.dropped`);
  await expect(analyzeTable(pool, { schema: "rm_items_g1", table: "dropped" })).resolves.toBeUndefined();
});
