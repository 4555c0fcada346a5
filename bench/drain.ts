import type pg from "pg";
import type { Log } from "../streams/connection.ts";
import { waitUntil } from "../test/support/processes.ts";
import { streamHead } from "../test/support/streams.ts";
import { projectorAt } from "./checkpoints.ts";
import type { Fleet } from "./fleet.ts";
import type { KeyPacer } from "./key-pacer.ts";
import { measureQueryWhile, type QueryFigures } from "./queries.ts";
import { seedHistory } from "./seed.ts";
import { round } from "./stats.ts";

export type DrainFigures = {
  events: number;
  publish_seconds: number;
  drain_seconds: number;
  events_per_second: number;
  /** GET /v1/events by app and level, timed from the first seeded fact until the projector has applied the last. */
  list_while_draining: QueryFigures;
};

/**
 * Appends `backlog` events of history straight to INGEST and times the events projector until it
 * has applied them all: its sustained rate. Meanwhile one client lists `listPath` again and again,
 * which is what a dashboard user sees while a backlog is written, the moment the list target is for.
 */
export async function runDrain(input: { db: pg.Pool; streams: Log; fleet: Fleet; backlog: number; baseUrl: string; keys: KeyPacer<string>; listPath: () => string }): Promise<DrainFigures> {
  let draining = true;
  const listing = measureQueryWhile(input.baseUrl, input.keys, input.listPath, () => draining);
  try {
    const started = performance.now();
    await seedHistory(input.streams, input.fleet, input.backlog);
    const published = performance.now();
    const seededHead = await streamHead(input.streams, "INGEST");
    await waitUntil("the projector to drain the backlog", async () => (await projectorAt(input.db)) >= seededHead, 1_800_000, 250);
    const drainSeconds = (performance.now() - started) / 1000;
    draining = false;
    return {
      events: input.backlog,
      publish_seconds: round((published - started) / 1000),
      drain_seconds: round(drainSeconds),
      events_per_second: Math.round(input.backlog / drainSeconds),
      list_while_draining: await listing,
    };
  } finally {
    draining = false;
    await listing;
  }
}
