import { sql } from "slonik";
import { z } from "zod";
import { beforeAll, expect, it } from "vitest";
import { scratchDatabase } from "../../test/support/scratch-database.ts";
import { inOneSnapshot } from "./snapshot.ts";

const database = scratchDatabase("snapshot", 6);
const count = z.object({ n: z.number() });

beforeAll(async () => {
  await database.pool().query(sql.unsafe`create table seen (id int)`);
});

it("answers reads on several connections from one snapshot, blind to what commits between them", async () => {
  const pool = database.pool();
  const [first, second, concurrent] = await inOneSnapshot(pool, async (reader) => {
    const first = await reader.transaction((tx) => tx.oneFirst(sql.type(count)`select count(*)::int as n from seen`));
    await pool.query(sql.unsafe`insert into seen values (1)`); // a projector commits in between
    // Two more reads at once, so on two other connections than the exporter's.
    const [second, concurrent] = await Promise.all([0, 1].map(() => reader.transaction((tx) => tx.oneFirst(sql.type(count)`select count(*)::int as n from seen`))));
    return [first, second, concurrent];
  });
  expect([first, second, concurrent]).toEqual([0, 0, 0]);
  expect(await pool.oneFirst(sql.type(count)`select count(*)::int as n from seen`)).toBe(1);
});

it("keeps connections for the reads when many snapshots are asked for at once", async () => {
  const pool = database.pool();
  // Six pool connections: at most two exporters, so reads always find a connection.
  const answers = await Promise.all(
    Array.from({ length: 12 }, () =>
      inOneSnapshot(pool, (reader) => Promise.all([0, 1, 2].map(() => reader.transaction((tx) => tx.oneFirst(sql.type(count)`select count(*)::int as n from seen`))))),
    ),
  );
  expect(answers.flat().every((n) => n === 1)).toBe(true);
});
