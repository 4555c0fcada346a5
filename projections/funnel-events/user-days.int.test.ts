import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import pg from "pg";
import { sql, type DatabasePool, type DatabaseTransactionConnection } from "slonik";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { FunnelEventRow } from "../../domain/funnels/derive.ts";
import { scratchDatabase } from "../../test/support/scratch-database.ts";
import { openPool } from "../_runtime/database.ts";
import { removeExpiredUserDays } from "../retention/funnel-user-days.ts";
import { funnelAnalytics } from "./analytics.ts";
import { FunnelDayAnswers } from "./day-answers.ts";
import { insertFunnelEvents, reassignFunnelEvents, replaceFunnelEvents } from "./write.ts";

/**
 * funnel_user_days is what a grouping of funnel_events gives, whatever way the events came:
 * ingested in several batches (merged into existing rows), imported over existing ones, claimed,
 * or already stored when migration 003 created the table.
 */

const database = scratchDatabase("userdays");
let pool: DatabasePool;
beforeAll(() => {
  pool = database.pool();
});

const PROJECT = "00000000-0000-4000-8000-0000000000d1";
const LATEST = "005_funnel_day_versions.sql";
const APP = "00000000-0000-4000-8000-0000000000d2";

/** A fresh schema migrated up to `last` (a migration file name), run as the migrator does, through pg. */
async function migratedSchema(last: string, before?: (client: pg.Client) => Promise<void>): Promise<string> {
  const schema = `days_${randomUUID().slice(0, 8)}`;
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(`create schema ${schema}; set search_path to ${schema}, public`);
    for (const name of ["001_funnel_events.sql", "002_funnel_keys.sql", "003_funnel_user_days.sql", "004_funnel_user_days_alone.sql", LATEST]) {
      if (name === "003_funnel_user_days.sql" && before) await before(client);
      await client.query(await readFile(new URL(`./migrations/${name}`, import.meta.url), "utf8"));
      if (name === last) break;
    }
    // Imports remember their (app, client_event_id) pairs; one partition takes every receipt day.
    await client.query("create table funnel_event_dedup_any partition of funnel_event_dedup default");
  } finally {
    await client.end();
  }
  return schema;
}

function inSchema<T>(schema: string, work: (tx: DatabaseTransactionConnection) => Promise<T>): Promise<T> {
  return pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`select set_config('search_path', ${`${schema}, public`}, true)`);
    return work(tx);
  });
}

/** The summary rows with users and kinds resolved (kind numbers are internal to a schema), in a stable order. */
const summaries = (tx: DatabaseTransactionConnection) =>
  tx.anyFirst(sql.type(z.object({ row: z.string() }))`
    select jsonb_build_object(
             'app', s.app_id, 'user', u.user_id, 'day', s.day, 'dev', s.is_dev, 'environment', s.environment, 'version', s.app_version,
             'first', s.first_at, 'last', s.last_at, 'alone', s.alone,
             'kinds', (select jsonb_object_agg(n.name || '|' || coalesce(c.name, ''), jsonb_build_array(s.firsts[k.kind], s.lasts[k.kind], s.counts[k.kind]))
                         from funnel_kinds k join funnel_names n on n.name_key = k.step_key left join funnel_names c on c.name_key = k.screen_key
                        where k.project_id = s.project_id and s.counts[k.kind] is not null))::text as row
      from funnel_user_days s join funnel_users u on u.user_key = s.user_key
     order by 1`);

/** The stored events, with user, step and screen names, as insertFunnelEvents takes them. */
const storedEvents = (tx: DatabaseTransactionConnection) =>
  tx.any(sql.type(z.object({ row: z.any() }))`
    select jsonb_build_object('id', e.id, 'project_id', e.project_id, 'app_id', e.app_id, 'client_event_id', e.client_event_id,
             'session_id', e.id, 'user_id', u.user_id, 'step_name', s.name, 'screen_name', c.name, 'environment', e.environment,
             'app_version', e.app_version, 'os_version', null, 'device_model', null, 'is_dev', e.is_dev,
             'timestamp', to_char(e."timestamp" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'received_at', to_char(e.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as row
      from funnel_events e left join funnel_users u on u.user_key = e.user_key
      join funnel_names s on s.name_key = e.step_key left join funnel_names c on c.name_key = e.screen_key`);

function row(user: string | null, step: string, screen: string | null, day: number, minute: number, extra: Partial<FunnelEventRow> = {}): FunnelEventRow {
  return {
    id: randomUUID(),
    project_id: PROJECT,
    app_id: APP,
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
    timestamp: new Date(Date.UTC(2026, 10, day, 23, minute)).toISOString(),
    received_at: new Date(Date.UTC(2026, 10, 20)).toISOString(),
    ...extra,
  };
}

/** The summaries a schema holds, against those of a fresh schema given its events in one insert. */
async function recomputed(schema: string) {
  const events = await inSchema(schema, storedEvents);
  const fresh = await migratedSchema(LATEST);
  await inSchema(fresh, (tx) => insertFunnelEvents(tx, events.map((event) => event.row as FunnelEventRow)));
  return { kept: await inSchema(schema, summaries), rebuilt: await inSchema(fresh, summaries) };
}

describe("per-user step summaries", () => {
  it("stay a grouping of the events through batches, imports and claims", async () => {
    const schema = await migratedSchema(LATEST);
    const imported = randomUUID();
    const batches = [
      [row("ann", "open", "Home", 1, 10), row("ann", "pay", null, 1, 20), row(null, "open", "Home", 1, 30), row("bob", "open", "Home", 1, 40)],
      // Later batches add to ann's day (earlier and later times, a kind seen for the first time) and start a day of hers.
      [row("ann", "open", "Home", 1, 5), row("ann", "open", "Home", 1, 50), row("ann", "done", "Thanks", 1, 55), row("ann", "open", "Home", 2, 1)],
      [row("anon-1", "open", "Cart", 1, 15), row("anon-1", "open", "Home", 2, 3, { app_version: "1.1.0" }), row("bob", "pay", null, 1, 45, { client_event_id: imported })],
    ];
    await inSchema(schema, async (tx) => {
      for (const batch of batches) await insertFunnelEvents(tx, batch);
      // The import moves bob's pay to the next day, as another step, with a new kind.
      await replaceFunnelEvents(tx, [{ app_id: APP, client_event_id: imported }], [row("bob", "cart", "Basket", 2, 0, { client_event_id: imported })]);
      await reassignFunnelEvents(tx, { app_ids: [APP], anonymous_id: "anon-1", user_id: "ann" });
    });
    const { kept, rebuilt } = await recomputed(schema);
    expect(kept).toEqual(rebuilt);
    type Summary = { user: string; day: string; version: string; kinds: Record<string, [string, string, number]> };
    const order = (summary: Summary) => `${summary.user} ${summary.day} ${summary.version}`;
    const parsed = kept.map((text) => JSON.parse(text) as Summary).sort((a, b) => (order(a) < order(b) ? -1 : 1));
    // ann's second day is two rows: the claimed event came from another app version.
    expect(parsed.map(order)).toEqual(["ann 2026-11-01 1.0.0", "ann 2026-11-02 1.0.0", "ann 2026-11-02 1.1.0", "bob 2026-11-01 1.0.0", "bob 2026-11-02 1.0.0"]);
    // ann's first day: three events of open/Home (first 23:05, last 23:50), pay, done, and the claimed open/Cart.
    expect(parsed[0]!.kinds["open|Home"]).toEqual(["2026-11-01T23:05:00+00:00", "2026-11-01T23:50:00+00:00", 3]);
    expect(Object.keys(parsed[0]!.kinds).sort()).toEqual(["done|Thanks", "open|Cart", "open|Home", "pay|"]);
    expect(parsed[3]!.kinds).toEqual({ "open|Home": ["2026-11-01T23:40:00+00:00", "2026-11-01T23:40:00+00:00", 1] });
  });

  it("mark the rows of users with a single row in their project as alone, through batches, imports and claims", async () => {
    const schema = await migratedSchema(LATEST);
    const OTHER_PROJECT = "00000000-0000-4000-8000-0000000000d3";
    const OTHER_APP = "00000000-0000-4000-8000-0000000000d4";
    const moved = randomUUID();
    const batches = [
      // eve: one day, two events; dan: two days in one batch; fay and gil: one day each; hal: a day and an imported event on the next.
      [row("eve", "open", "Home", 1, 1), row("eve", "pay", null, 1, 2), row("dan", "open", "Home", 1, 3), row("dan", "open", "Home", 2, 3), row("fay", "open", "Home", 1, 4)],
      [row("gil", "open", "Home", 1, 5), row("hal", "open", "Home", 1, 6), row("hal", "pay", null, 2, 6, { client_event_id: moved }), row("anon-2", "open", "Home", 1, 7)],
      // fay gets a second day (her first row has a sibling now); gil another event of his day; ivy a day of her own.
      [row("fay", "pay", null, 2, 8), row("gil", "pay", null, 1, 9), row("ivy", "open", "Home", 2, 10)],
      // eve in another project is another row there, and alone there too.
      [row("eve", "open", "Home", 3, 11, { project_id: OTHER_PROJECT, app_id: OTHER_APP })],
    ];
    await inSchema(schema, async (tx) => {
      for (const batch of batches) await insertFunnelEvents(tx, batch);
      // The import moves hal's second day back to his first: one row left.
      await replaceFunnelEvents(tx, [{ app_id: APP, client_event_id: moved }], [row("hal", "pay", null, 1, 30, { client_event_id: moved })]);
      // ivy claims anon-2's day: two rows.
      await reassignFunnelEvents(tx, { app_ids: [APP], anonymous_id: "anon-2", user_id: "ivy" });
    });
    const { kept, rebuilt } = await recomputed(schema);
    expect(kept).toEqual(rebuilt);
    const alone = kept
      .map((text) => JSON.parse(text) as { user: string; day: string; app: string; alone: boolean })
      .map((summary) => `${summary.user} ${summary.day.slice(8, 10)}${summary.app === OTHER_APP ? " other" : ""} ${summary.alone ? "alone" : "grouped"}`)
      .sort();
    expect(alone).toEqual([
      "dan 01 grouped", "dan 02 grouped", "eve 01 alone", "eve 03 other alone", "fay 01 grouped", "fay 02 grouped",
      "gil 01 alone", "hal 01 alone", "ivy 01 grouped", "ivy 02 grouped",
    ]);
  });

  it("are built by migrations 003 and 004 from the events already stored", async () => {
    const events = [row("ann", "open", "Home", 1, 10), row("ann", "open", "Home", 1, 12), row("bob", "pay", null, 3, 1, { is_dev: true }), row(null, "open", null, 3, 2)];
    const schema = await migratedSchema(LATEST, async (client) => {
      // Stored before 003 through the 002 write path: rows and keys, no summaries yet.
      await client.query(`insert into funnel_users (user_id) values ('ann'), ('bob'); insert into funnel_names (name) values ('open'), ('Home'), ('pay')`);
      for (const event of events) {
        await client.query(
          `insert into funnel_events (project_id, app_id, "timestamp", user_key, step_key, is_dev, environment, app_version, screen_key, id, client_event_id, received_at)
           select $1, $2, $3, (select user_key from funnel_users where user_id = $4), (select name_key from funnel_names where name = $5), $6, $7, $8,
                  (select name_key from funnel_names where name = $9), $10, null, $11`,
          [event.project_id, event.app_id, event.timestamp, event.user_id, event.step_name, event.is_dev, event.environment, event.app_version, event.screen_name, event.id, event.received_at],
        );
      }
    });
    const { kept, rebuilt } = await recomputed(schema);
    expect(kept).toEqual(rebuilt);
    expect(kept.length).toBe(2);
  });

  it("answer funnel queries as the events do, for windows that cut days and users across them", async () => {
    // 60 users over days 1-4, steps at pseudo-random minutes (some before the step they follow), two versions.
    const events: FunnelEventRow[] = [];
    for (let n = 0; n < 60; n += 1) {
      const steps = ["open", "browse", "pay"].slice(0, 1 + (n % 3));
      steps.forEach((step, k) => {
        const minute = ((n * 37 + k * 53) % 180) - 60 + (n % 5 === 0 ? -k * 90 : 0);
        events.push(row(`u${n}`, step, step === "browse" ? "List" : null, 1 + (n % 4), minute, { app_version: n % 2 ? "1.0.0" : "2.0.0" }));
      });
      if (n % 4 === 0) events.push(row(`u${n}`, "open", null, 2 + (n % 3), n));
      // Some users send from two versions: two rows, one user overall, one in each version's group.
      if (n % 6 === 1) events.push(row(`u${n}`, "pay", null, 1 + (n % 4), 100, { app_version: "3.0.0" }));
    }
    const withSummaries = await migratedSchema(LATEST);
    const eventsOnly = await migratedSchema(LATEST);
    for (const schema of [withSummaries, eventsOnly]) await inSchema(schema, (tx) => insertFunnelEvents(tx, events));
    // Without kinds a funnel matches none in the summaries and is counted from its events.
    await inSchema(eventsOnly, (tx) => tx.query(sql.unsafe`delete from funnel_kinds`));
    const poolOf = (schema: string) => openPool(`${database.url}?options=${encodeURIComponent(`-c search_path=${schema},public`)}`, 2);
    const pools = [await poolOf(withSummaries), await poolOf(eventsOnly)];
    try {
      const funnel = { name: "F", steps: [{ name: "a", event_filter: { step_name: "open" } }, { name: "b", event_filter: { screen_name: "List" } }, { name: "c", event_filter: { step_name: "pay" } }] };
      const windows = [
        [Date.UTC(2026, 10, 1), Date.UTC(2026, 10, 6)],
        // Cuts days 2 and 4 in the middle of users' steps.
        [Date.UTC(2026, 10, 2, 23, 20), Date.UTC(2026, 10, 4, 23, 40)],
        // Within one day.
        [Date.UTC(2026, 10, 3, 22, 50), Date.UTC(2026, 10, 3, 23, 59)],
      ];
      // Each answer three ways: from the summaries, from the summaries with the inner days' alone
      // rows counted day by day (asked twice: computed, then kept), and from the events.
      const answers = new FunnelDayAnswers();
      const compare = async () => {
        for (const [since, until] of windows) {
          const scope = { projectId: PROJECT, appIds: [APP], dataMode: "production" as const, since: new Date(since!), until: new Date(until!) };
          for (const mode of ["open", "closed"] as const) {
            for (const breakdown of [undefined, "app_version"] as const) {
              const [summarized, counted] = await Promise.all(pools.map((each) => funnelAnalytics(each, scope, funnel, mode, breakdown)));
              const label = `${mode} ${breakdown} ${new Date(since!).toISOString()}`;
              expect(summarized, label).toEqual(counted);
              for (let ask = 0; ask < 2; ask += 1) expect(await funnelAnalytics(pools[0]!, scope, funnel, mode, breakdown, answers), label).toEqual(counted);
            }
          }
        }
      };
      await compare();
      // Later events on inner days: a user alone on day 3 gets a second row, new users arrive on
      // days 2 and 5, a user's day gets a step before the others. The days' kept answers go.
      const later = [row("u2", "pay", null, 5, 10), row("late-1", "open", null, 2, 5), row("late-2", "open", null, 5, 7), row("late-2", "pay", null, 5, 9), row("u1", "open", null, 2, -100)];
      for (const schema of [withSummaries, eventsOnly]) await inSchema(schema, (tx) => insertFunnelEvents(tx, later));
      await inSchema(eventsOnly, (tx) => tx.query(sql.unsafe`delete from funnel_kinds`));
      await compare();
      const all = await funnelAnalytics(pools[0]!, { projectId: PROJECT, appIds: [APP], dataMode: "production", since: new Date(Date.UTC(2026, 10, 1)), until: new Date(Date.UTC(2026, 10, 6)) }, funnel, "open");
      expect(all.total_users).toBe(62);
    } finally {
      for (const each of pools) await each.end();
    }
  });

  it("keep a day's funnel answer while the day's version holds, and every writer moves the version", async () => {
    const schema = await migratedSchema(LATEST);
    await inSchema(schema, (tx) => insertFunnelEvents(tx, [row("ann", "open", "Home", 2, 0), row("bob", "open", "Home", 3, 0), row("bob", "pay", null, 3, 5), row("cy", "open", "Home", 4, 0)]));
    const scoped = await openPool(`${database.url}?options=${encodeURIComponent(`-c search_path=${schema},public`)}`, 3);
    try {
      const scope = { projectId: PROJECT, appIds: [APP], dataMode: "production" as const, since: new Date(Date.UTC(2026, 10, 1)), until: new Date(Date.UTC(2026, 10, 6)) };
      const funnel = { name: "F", steps: [{ name: "a", event_filter: { step_name: "open" } }, { name: "b", event_filter: { step_name: "pay" } }] };
      const answers = new FunnelDayAnswers();
      const users = async (kept?: FunnelDayAnswers) => (await funnelAnalytics(scoped, scope, funnel, "open", undefined, kept)).steps.map((step) => step.unique_users);
      expect(await users(answers)).toEqual([3, 1]);
      // bob's day changed behind the triggers' back (a replica's role skips them): the kept answer
      // is what the next one reads, so it still counts him.
      await inSchema(schema, async (tx) => {
        await tx.query(sql.unsafe`set local session_replication_role = replica`);
        await tx.query(sql.unsafe`delete from funnel_user_days where day = '2026-11-03'`);
      });
      expect(await users(answers)).toEqual([3, 1]);
      expect(await users()).toEqual([2, 0]);
      // A write through the projector moves day 3's version: its answer is counted again.
      await inSchema(schema, (tx) => insertFunnelEvents(tx, [row("dee", "open", "Home", 3, 30)]));
      expect(await users(answers)).toEqual([3, 0]);
      // Retention deletes from the partitions themselves; their triggers move the version too.
      await inSchema(schema, async (tx) => {
        for (const leaf of await tx.anyFirst(sql.type(z.object({ leaf: z.string() }))`select inhrelid::regclass::text as leaf from pg_inherits where inhparent = 'funnel_user_days'::regclass`)) {
          await tx.query(sql.unsafe`delete from ${sql.identifier([leaf])} where day = '2026-11-04'`);
        }
      });
      expect(await users(answers)).toEqual([2, 0]);
    } finally {
      await scoped.end();
    }
  });

  it("go with the events retention removes, and are counted again on the day of the cutoff", async () => {
    const schema = await migratedSchema(LATEST);
    const events = [row("ann", "open", "Home", 1, 0), row("ann", "open", "Home", 2, -600), row("ann", "pay", null, 2, -60), row("bob", "open", "Home", 2, 0)];
    await inSchema(schema, (tx) => insertFunnelEvents(tx, events));
    // Retention deletes the funnel events before the cutoff (day 2, 15:00) first, as removeExpiredRows does.
    const cutoff = new Date(Date.UTC(2026, 10, 2, 15));
    await inSchema(schema, (tx) => tx.query(sql.unsafe`delete from funnel_events where "timestamp" < ${cutoff.toISOString()}::timestamptz`));
    const deleted = await removeExpiredUserDays(pool, schema, () => cutoff, async () => undefined);
    expect(deleted).toBe(1);
    const { kept, rebuilt } = await recomputed(schema);
    expect(kept).toEqual(rebuilt);
    // ann's day 1 is gone, her day 2 holds only the pay at 22:00 now; bob's day is untouched.
    expect(kept.map((text) => JSON.parse(text) as { user: string; kinds: object })).toEqual([
      expect.objectContaining({ user: "ann", kinds: { "pay|": ["2026-11-02T22:00:00+00:00", "2026-11-02T22:00:00+00:00", 1] } }),
      expect.objectContaining({ user: "bob" }),
    ]);
  });

  it("leave out a project's kinds past 256, and funnels over them are counted from the events", async () => {
    const schema = await migratedSchema(LATEST);
    // One user sends 300 step names: a name per kind, numbered in the order they come.
    const events = Array.from({ length: 300 }, (_, n) => row("ann", `s${n}`, null, 1, n % 50));
    for (let start = 0; start < events.length; start += 100) await inSchema(schema, (tx) => insertFunnelEvents(tx, events.slice(start, start + 100)));
    const slots = await inSchema(schema, (tx) => tx.anyFirst(sql.type(z.object({ slots: z.number() }))`select cardinality(counts) as slots from funnel_user_days`));
    expect(slots).toEqual([256]);
    const { kept, rebuilt } = await recomputed(schema);
    expect(kept).toEqual(rebuilt);
    const scoped = await openPool(`${database.url}?options=${encodeURIComponent(`-c search_path=${schema},public`)}`, 2);
    try {
      const scope = { projectId: PROJECT, appIds: [APP], dataMode: "production" as const, since: new Date(Date.UTC(2026, 10, 1)), until: new Date(Date.UTC(2026, 10, 3)) };
      const funnel = { name: "F", steps: [{ name: "a", event_filter: { step_name: "s0" } }, { name: "b", event_filter: { step_name: "s299" } }] };
      const answer = await funnelAnalytics(scoped, scope, funnel, "open");
      expect(answer.steps.map((step) => step.unique_users)).toEqual([1, 1]);
    } finally {
      await scoped.end();
    }
  });
});
