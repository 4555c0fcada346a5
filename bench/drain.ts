import type pg from "pg";
import { ingestProjections } from "../projections/registry.ts";
import type { Log } from "../streams/connection.ts";
import { waitUntil } from "../test/support/processes.ts";
import { streamHead } from "../test/support/streams.ts";
import { projectorAt } from "./checkpoints.ts";
import type { Fleet } from "./fleet.ts";
import { queryInOwnProcess } from "./query-process.ts";
import type { QueryFigures } from "./queries.ts";
import { seedHistory } from "./seed.ts";
import { round } from "./stats.ts";

export type DrainFigures = {
  events: number;
  publish_seconds: number;
  drain_seconds: number;
  /** The events read model alone: the rate at which events become listable. */
  events_per_second: number;
  /** Every read model built from INGEST (events, app users, metric and funnel events) at the head: the target. */
  all_read_models_seconds: number;
  all_read_models_events_per_second: number;
  /** Seconds each INGEST read model took to apply the backlog. */
  read_model_seconds: Record<string, number>;
  /** GET /v1/events by app and level, timed from the first seeded fact until the projector has applied the last. */
  list_while_draining: QueryFigures;
};

/**
 * Appends `backlog` events of history straight to INGEST and times every read model built from it
 * until each has applied them all: their sustained rates, the events read model's and all together. Meanwhile one client lists `listPath` again and again,
 * which is what a dashboard user sees while a backlog is written, the moment the list target is for.
 */
export async function runDrain(input: { db: pg.Pool; streams: Log; fleet: Fleet; backlog: number; baseUrl: string; keys: string[]; perKeyPerSecond: number; listPath: string }): Promise<DrainFigures> {
  const listing = queryInOwnProcess({ baseUrl: input.baseUrl, keys: input.keys, perKeyPerSecond: input.perKeyPerSecond, path: input.listPath });
  let listed: Promise<QueryFigures> | undefined;
  const stopListing = () => (listed ??= listing.stop());
  try {
    const started = performance.now();
    await seedHistory(input.streams, input.fleet, input.backlog);
    const published = performance.now();
    const seededHead = await streamHead(input.streams, "INGEST");
    const seconds: Record<string, number> = {};
    await Promise.all(
      ingestProjections().map(async (projection) => {
        await waitUntil(`the ${projection} projector to drain the backlog`, async () => (await projectorAt(input.db, projection)) >= seededHead, 1_800_000, 250);
        seconds[projection] = round((performance.now() - started) / 1000);
        if (projection === "events") void stopListing().catch(() => undefined);
      }),
    );
    const drainSeconds = seconds.events!;
    const allSeconds = Math.max(...Object.values(seconds));
    return {
      events: input.backlog,
      publish_seconds: round((published - started) / 1000),
      drain_seconds: drainSeconds,
      events_per_second: Math.round(input.backlog / drainSeconds),
      all_read_models_seconds: allSeconds,
      all_read_models_events_per_second: Math.round(input.backlog / allSeconds),
      read_model_seconds: seconds,
      list_while_draining: await stopListing(),
    };
  } finally {
    await stopListing().catch(() => undefined);
  }
}
