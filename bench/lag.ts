import { randomUUID } from "node:crypto";
import pg from "pg";
import { BATCH_EVENTS, batchBody, postBatch, type ClientKey } from "./ingest-load.ts";

/** A client key and the app it writes to. */
export type AppKey = ClientKey & { id: string };
import { Samples } from "./stats.ts";

/**
 * Open loop at `eventsPerSecond` (100-event batches) for `seconds`. Every batch carries its own
 * session id; after its acknowledgement the session is polled in the events read model until it is
 * there. The difference is the acknowledgement-to-queryable lag. Polling reads Postgres directly so
 * the API's per-key rate limit does not throttle the measurement. The poll names the app, so it
 * walks the (app_id, session_id) index: by session alone it would scan the table, and eight
 * pollers scanning millions of rows every 10 ms take the CPU the projector needs.
 */
export async function measureLag(baseUrl: string, databaseUrl: string, keys: AppKey[], eventsPerSecond: number, seconds: number) {
  const db = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  const lag = new Samples();
  const interval = (1000 * BATCH_EVENTS) / eventsPerSecond;
  let failed = 0;
  const pending: Promise<void>[] = [];
  const started = performance.now();
  for (let index = 0; performance.now() - started < seconds * 1000; index += 1) {
    const due = started + index * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const key = keys[index % keys.length]!;
    const sessionId = randomUUID();
    pending.push(
      (async () => {
        const answer = await postBatch(baseUrl, key, batchBody(key.bundleId, sessionId));
        if (answer.status !== 200) {
          failed += 1;
          return;
        }
        const acknowledged = performance.now();
        for (;;) {
          const found = await db.query("select 1 from events where app_id = $1 and session_id = $2 limit 1", [key.id, sessionId]);
          if (found.rowCount) break;
          if (performance.now() - acknowledged > 30_000) {
            failed += 1;
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        lag.add(performance.now() - acknowledged);
      })(),
    );
  }
  await Promise.all(pending);
  await db.end();
  return { events_per_second: eventsPerSecond, seconds, failed, lag: lag.summary() };
}
