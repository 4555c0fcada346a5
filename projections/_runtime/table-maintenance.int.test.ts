import { sql, type DatabasePool } from "slonik";
import { beforeAll, expect, it } from "vitest";
import { waitUntil } from "../../test/support/processes.ts";
import { scratchDatabase } from "../../test/support/scratch-database.ts";
import { maintainTables, tablesDueForMaintenance, type DueTable } from "./table-maintenance.ts";

const database = scratchDatabase("maint");
let pool: DatabasePool;

beforeAll(async () => {
  pool = database.pool();
  await pool.query(sql.unsafe`create schema rm_items_g1`);
  // Where the server runs autovacuum, it must not get to these tables first.
  await pool.query(sql.unsafe`create table rm_items_g1.plain (id int primary key, n int) with (autovacuum_enabled = off)`);
  await pool.query(sql.unsafe`create table rm_items_g1.monthly (id int, at date) partition by range (at)`);
  await pool.query(sql.unsafe`
    create table rm_items_g1.monthly_p1 partition of rm_items_g1.monthly for values from ('2026-01-01') to ('2026-02-01')
      with (autovacuum_enabled = off)`);
  // Outside the generation schemas: not a read model's table.
  await pool.query(sql.unsafe`create table public.elsewhere (id int)`);
});

const maintain = (tables: DueTable[]) => maintainTables(pool, tables, () => false);
const due = async () => (await tablesDueForMaintenance(pool, 10)).map(({ schema, table, work }) => `${schema}.${table}: ${work}`).sort();
/** Statistics counters reach the shared view when a backend goes idle, within about a second. */
const noneDue = () => waitUntil("no table to be due", async () => (await due()).length === 0, 10_000, 100);

it("vacuums the read-model tables that autovacuum would, analyzes the ones that only changed, and leaves the rest", { timeout: 40_000 }, async () => {
  await pool.query(sql.unsafe`insert into rm_items_g1.plain select g, 0 from generate_series(1, 2000) g`);
  await pool.query(sql.unsafe`insert into rm_items_g1.monthly select g, date '2026-01-15' from generate_series(1, 2000) g`);
  await pool.query(sql.unsafe`insert into public.elsewhere select g from generate_series(1, 2000) g`);
  // Inserted rows past 1,000 + 20%: a vacuum, which keeps the visibility map; the partition, not
  // its parent, which holds no rows; nothing outside rm_* schemas.
  await waitUntil("the inserts to reach the statistics view", async () => (await due()).length === 2, 10_000, 100);
  expect(await due()).toEqual(["rm_items_g1.monthly_p1: vacuum", "rm_items_g1.plain: vacuum"]);
  await maintain(await tablesDueForMaintenance(pool, 10));
  const maintained = await pool.any(sql.unsafe`
    select relname, last_vacuum is not null as vacuumed, last_analyze is not null as analyzed
      from pg_stat_user_tables where schemaname = 'rm_items_g1' order by relname`);
  expect(maintained).toEqual([
    { relname: "monthly", vacuumed: false, analyzed: false },
    { relname: "monthly_p1", vacuumed: true, analyzed: true },
    { relname: "plain", vacuumed: true, analyzed: true },
  ]);
  await noneDue();

  // 300 updated rows of 2,000: more changed than 50 + 10%, fewer dead than 50 + 20%: an analyze.
  await pool.query(sql.unsafe`update rm_items_g1.plain set n = 1 where id <= 300`);
  await waitUntil("the changed table to be due", async () => (await due()).length === 1, 10_000, 100);
  expect(await due()).toEqual(["rm_items_g1.plain: analyze"]);
  await maintain(await tablesDueForMaintenance(pool, 10));
  await noneDue();

  // 500 more updated rows: 800 dead row versions, past 50 + 20%: a vacuum, which removes them.
  await pool.query(sql.unsafe`update rm_items_g1.plain set n = 2 where id <= 500`);
  await waitUntil("the table with dead rows to be due", async () => (await due()).length === 1, 10_000, 100);
  expect(await due()).toEqual(["rm_items_g1.plain: vacuum"]);
  await maintain(await tablesDueForMaintenance(pool, 10));
  await noneDue();
  expect(await pool.oneFirst(sql.unsafe`select n_dead_tup from pg_stat_user_tables where schemaname = 'rm_items_g1' and relname = 'plain'`)).toBe(0);
});

it("lifts the statement timeout for the vacuum only, and puts the connection's back", async () => {
  const timeouts = await pool.connect(async (connection) => {
    await connection.query(sql.unsafe`set statement_timeout = '45s'`);
    return connection.oneFirst(sql.unsafe`select current_setting('statement_timeout')`);
  });
  expect(timeouts).toBe("45s");
  await maintain([{ schema: "rm_items_g1", table: "plain", work: "vacuum" }]);
  // The pool has 2 connections; each still has its own timeout afterwards.
  const after = await Promise.all([0, 1].map(() => pool.connect((connection) => connection.oneFirst(sql.unsafe`select current_setting('statement_timeout')`))));
  expect(after).not.toContain("0");
});

it("skips a table dropped after it was named", async () => {
  await pool.query(sql.unsafe`create table rm_items_g1.dropped (id int)`);
  await pool.query(sql.unsafe`drop table rm_items_g1.dropped`);
  await expect(maintain([{ schema: "rm_items_g1", table: "dropped", work: "vacuum" }])).resolves.toBeUndefined();
});
