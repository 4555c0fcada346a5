import type pg from "pg";
import { ingestProjections } from "../projections/registry.ts";
import { waitUntil } from "../test/support/processes.ts";
import { round } from "./stats.ts";

/** Rows in the events read model (its active generation, through the search path). */
export async function eventsProjected(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<{ count: string }>("select count(*) from events");
  return Number(rows[0]!.count);
}

/** The stream sequence the active generation of `projection` has applied: the lowest of its partitions' checkpoints. */
export async function projectorAt(db: pg.Pool, projection = "events"): Promise<number> {
  const { rows } = await db.query<{ last_seq: string }>(
    `select min(c.last_seq) as last_seq from projection_checkpoints c
       join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
      where c.projection = $1`,
    [projection],
  );
  return Number(rows[0]?.last_seq ?? 0);
}

/** The active generation of `projection`: its tables live in schema rm_<projection>_g<generation>. */
export async function activeGeneration(db: pg.Pool | pg.Client, projection: string): Promise<number> {
  const { rows } = await db.query<{ generation: number }>("select active_generation as generation from projection_generations where projection = $1", [projection]);
  if (!rows[0]) throw new Error(`no active generation of ${projection}`);
  return rows[0].generation;
}

/** Seconds from now until every read model built from INGEST has applied the stream up to `head`, per read model. */
export async function catchUpSeconds(db: pg.Pool, head: number, timeoutMs = 600_000): Promise<Record<string, number>> {
  const started = performance.now();
  const seconds: Record<string, number> = {};
  await Promise.all(
    ingestProjections().map(async (projection) => {
      await waitUntil(`the ${projection} projector to catch up`, async () => (await projectorAt(db, projection)) >= head, timeoutMs, 200);
      seconds[projection] = round((performance.now() - started) / 1000);
    }),
  );
  return seconds;
}
