import { randomUUID } from "node:crypto";
import pg from "pg";
import { postBatch } from "./ingest-load.ts";
import type { AppKey } from "./lag.ts";
import { Samples } from "./stats.ts";

const EVENTS_PER_BATCH = 10;

/** A batch of ordinary events with one error whose message no other batch uses: it opens an issue of its own. */
function batchWithError(bundleId: string, title: string): string {
  const sessionId = randomUUID();
  const events = Array.from({ length: EVENTS_PER_BATCH }, (_, index) => ({
    message: index === 0 ? title : `Tapped button ${index}`,
    level: index === 0 ? "error" : "info",
    session_id: sessionId,
    client_event_id: randomUUID(),
    environment: "web",
    app_version: "2.4.1",
    sdk_name: "web-sdk",
    sdk_version: "1.0.0",
  }));
  return JSON.stringify({ bundle_id: bundleId, events });
}

/**
 * Error-to-issue latency: an open loop of `errorsPerSecond` batches for `seconds`, each carrying
 * one new error amid ordinary events; after each acknowledgement the issues read model is polled
 * (Postgres directly, so the API's rate limit does not throttle the measurement) until the issue
 * is there. The difference is what the issue detector adds on top of ingest.
 */
export async function measureIssueLatency(baseUrl: string, databaseUrl: string, keys: AppKey[], errorsPerSecond: number, seconds: number) {
  const db = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  const latency = new Samples();
  const interval = 1000 / errorsPerSecond;
  let failed = 0;
  const pending: Promise<void>[] = [];
  const started = performance.now();
  for (let index = 0; performance.now() - started < seconds * 1000; index += 1) {
    const wait = started + index * interval - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const key = keys[index % keys.length]!;
    const title = `Bench failure ${randomUUID().replace(/\d/g, "x")}`;
    pending.push(
      (async () => {
        const answer = await postBatch(baseUrl, key, batchWithError(key.bundleId, title));
        if (answer.status !== 200) {
          failed += 1;
          return;
        }
        const acknowledged = performance.now();
        for (;;) {
          const found = await db.query("select 1 from issues where app_id = $1 and title = $2 limit 1", [key.id, title]);
          if (found.rowCount) break;
          if (performance.now() - acknowledged > 60_000) {
            failed += 1;
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        latency.add(performance.now() - acknowledged);
      })(),
    );
  }
  await Promise.all(pending);
  await db.end();
  return { errors_per_second: errorsPerSecond, events_per_second: errorsPerSecond * EVENTS_PER_BATCH, seconds, failed, latency: latency.summary() };
}
