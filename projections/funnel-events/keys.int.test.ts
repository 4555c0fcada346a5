import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import pg from "pg";
import { sql, type DatabasePool, type DatabaseTransactionConnection } from "slonik";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { FunnelEventRow } from "../../domain/funnels/derive.ts";
import { scratchDatabase } from "../../test/support/scratch-database.ts";
import { insertFunnelEvents, reassignFunnelEvents } from "./write.ts";

const database = scratchDatabase("funnelkeys");
let pool: DatabasePool;
beforeAll(() => {
  pool = database.pool();
});

const migration = (name: string) => readFile(new URL(`./migrations/${name}`, import.meta.url), "utf8");

/** Runs `work` in a transaction inside a fresh schema, as the migrations and the projector see it. */
async function inSchema<T>(schema: string, work: (tx: DatabaseTransactionConnection) => Promise<T>): Promise<T> {
  return pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`select set_config('search_path', ${`${schema}, public`}, true)`);
    return work(tx);
  });
}

const resolvedRow = z.object({ id: z.string(), user_id: z.string().nullable(), step_name: z.string(), screen_name: z.string().nullable(), ms: z.number() });

/** The stored events with their keys resolved to the values they stand for. */
const resolved = (tx: DatabaseTransactionConnection) =>
  tx.any(sql.type(resolvedRow)`
    select e.id, u.user_id, s.name as step_name, c.name as screen_name, (extract(epoch from e."timestamp") * 1000)::float8 as ms
      from funnel_events e
      left join funnel_users u on u.user_key = e.user_key
      join funnel_names s on s.name_key = e.step_key
      left join funnel_names c on c.name_key = e.screen_key
     order by e.id`);

function row(user: string | null, step: string, screen: string | null, minute: number): FunnelEventRow {
  return {
    id: randomUUID(),
    project_id: "00000000-0000-4000-8000-000000000001",
    app_id: "00000000-0000-4000-8000-000000000002",
    client_event_id: null,
    session_id: randomUUID(),
    user_id: user,
    step_name: step,
    screen_name: screen,
    environment: "ios",
    app_version: "1.0.0",
    os_version: null,
    device_model: null,
    is_dev: false,
    timestamp: new Date(Date.UTC(2026, 10, 1, 12, minute)).toISOString(),
    received_at: new Date(Date.UTC(2026, 10, 1, 13)).toISOString(),
  };
}

const expected = (rows: readonly FunnelEventRow[]) =>
  rows
    .map(({ id, user_id, step_name, screen_name, timestamp }) => ({ id, user_id, step_name, screen_name, ms: Date.parse(timestamp) }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));

describe("funnel events keyed by user and name", () => {
  it("upgrades a table of names in place: every row keeps its user, step and screen", async () => {
    const schema = `upgrade_${randomUUID().slice(0, 8)}`;
    const rows = [row("ann", "open", "Home", 1), row("bob", "open", null, 2), row(null, "pay", "Cart", 3), row("ann", "Cart", "open", 4)];
    // Migrations are scripts of many statements: run as the migrator does, through pg.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(`create schema ${schema}; set search_path to ${schema}, public`);
      await client.query(await migration("001_funnel_events.sql"));
      await client.query("insert into funnel_events select * from json_populate_recordset(null::funnel_events, $1)", [JSON.stringify(rows)]);
      await client.query(await migration("002_funnel_keys.sql"));
      await client.query(await migration("003_funnel_user_days.sql"));
      await client.query(await migration("004_funnel_user_days_alone.sql"));
    } finally {
      await client.end();
    }
    const after = await inSchema(schema, resolved);
    expect(after).toEqual(expected(rows));
    // Step and screen names share one dictionary: "open" and "Cart" are both, and have one key each.
    const names = await inSchema(schema, (tx) => tx.anyFirst(sql.type(z.object({ name: z.string() }))`select name from funnel_names order by name`));
    expect(names).toEqual(["Cart", "Home", "open", "pay"]);

    // The projector goes on numbering after the upgraded keys; a claim moves the rows to a user seen for the first time.
    const more = [row("cid", "pay", null, 5), row("bob", "done", "Thanks", 6)];
    await inSchema(schema, async (tx) => {
      // No client_event_id: nothing goes into the dedup table, which needs no partition.
      await insertFunnelEvents(tx, more);
      await reassignFunnelEvents(tx, { app_ids: [rows[0]!.app_id], anonymous_id: "ann", user_id: "dee" });
      // An anonymous id without funnel events moves nothing and numbers nobody.
      await reassignFunnelEvents(tx, { app_ids: [rows[0]!.app_id], anonymous_id: "never-sent-a-step", user_id: "eve" });
    });
    const moved = (r: FunnelEventRow) => (r.user_id === "ann" ? { ...r, user_id: "dee" } : r);
    expect(await inSchema(schema, resolved)).toEqual(expected([...rows, ...more].map(moved)));
    const users = await inSchema(schema, (tx) => tx.any(sql.type(z.object({ user_id: z.string(), user_key: z.number() }))`select user_id, user_key from funnel_users order by user_key`));
    expect(users.map((user) => user.user_id)).toEqual(["ann", "bob", "cid", "dee"]);
    expect(new Set(users.map((user) => user.user_key)).size).toBe(4);
  });
});
