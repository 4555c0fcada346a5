import { randomUUID } from "node:crypto";
import pg from "pg";
import { groupingOf } from "../domain/issues/fingerprint.ts";
import { BATCH_EVENTS, batchBody, LEVELS, postBatch } from "./ingest-load.ts";
import type { AppKey } from "./lag.ts";
import { Samples } from "./stats.ts";

const PROBE_EVENTS = 10;
/** Error events in every ordinary fleet batch (LEVELS is the level of event i, cyclically). */
const ERRORS_PER_FLEET_BATCH = Array.from({ length: BATCH_EVENTS }, (_, index) => LEVELS[index % LEVELS.length]).filter((level) => level === "error").length;

/** A batch of ordinary events with one error whose message no other batch uses: it opens an issue of its own. */
function probeBatch(bundleId: string, title: string): string {
  const sessionId = randomUUID();
  const now = new Date().toISOString();
  const events = Array.from({ length: PROBE_EVENTS }, (_, index) => ({
    message: index === 0 ? title : `Tapped button ${index}`,
    level: index === 0 ? "error" : "info",
    session_id: sessionId,
    client_event_id: randomUUID(),
    environment: "web",
    app_version: "2.4.1",
    sdk_name: "web-sdk",
    sdk_version: "1.0.0",
    timestamp: now,
  }));
  return JSON.stringify({ bundle_id: bundleId, events });
}

/** Runs `tick` every `intervalMs` for `seconds` (an open loop: a slow answer does not delay the next send). */
async function openLoop(intervalMs: number, seconds: number, tick: (index: number) => Promise<void>): Promise<void> {
  const pending: Promise<void>[] = [];
  const started = performance.now();
  for (let index = 0; performance.now() - started < seconds * 1000; index += 1) {
    const wait = started + index * intervalMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(tick(index));
  }
  await Promise.all(pending);
}

/**
 * Error-to-issue latency amid normal ingest, with `errorsPerSecond` error events in all.
 * Ordinary fleet batches at `fleetEventsPerSecond` carry most of them (errors that recur: new
 * occurrences of the fleet's few issues, one per session); probe batches carry the rest, each one
 * new error that opens an issue of its own. After a probe's acknowledgement its fingerprint is
 * looked for in the issues read model until its issue is there: what the issue detector adds on
 * top of ingest. One poller asks for every waiting probe at once, by primary key, every 10 ms
 * (Postgres directly, so the API's rate limit does not throttle the measurement): a poll per probe
 * would load the database the detector writes to.
 */
export async function measureIssueLatency(baseUrl: string, databaseUrl: string, keys: AppKey[], errorsPerSecond: number, fleetEventsPerSecond: number, seconds: number) {
  const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const latency = new Samples();
  const fleetBatchesPerSecond = fleetEventsPerSecond / BATCH_EVENTS;
  const probesPerSecond = Math.max(1, errorsPerSecond - fleetBatchesPerSecond * ERRORS_PER_FLEET_BATCH);
  const statuses: Record<string, number> = {};
  const waiting = new Map<string, { appId: string; acknowledged: number }>();
  let sent = false;
  let failed = 0;
  const fail = (reason: string) => {
    failed += 1;
    statuses[reason] = (statuses[reason] ?? 0) + 1;
  };
  const fleet = openLoop(1000 / fleetBatchesPerSecond, seconds, async (index) => {
    const key = keys[index % keys.length]!;
    const answer = await postBatch(baseUrl, key, batchBody(key.bundleId));
    if (answer.status !== 200) fail(`fleet batch ${answer.status}`);
  });
  const probes = openLoop(1000 / probesPerSecond, seconds, async (index) => {
    const key = keys[(index * 7) % keys.length]!;
    const title = `Bench failure ${randomUUID().replace(/\d/g, "x")}`;
    const answer = await postBatch(baseUrl, key, probeBatch(key.bundleId, title));
    if (answer.status !== 200) return fail(`probe ${answer.status}`);
    waiting.set(groupingOf({ message: title, source_module: null, custom_attributes: {} }).fingerprint, { appId: key.id, acknowledged: performance.now() });
  });
  const sending = Promise.all([fleet, probes]).then(() => (sent = true));
  while (!sent || waiting.size > 0) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const asked = [...waiting];
    if (asked.length === 0) continue;
    const { rows } = await db.query<{ fingerprint: string }>(
      "select fingerprint from issue_fingerprints where (app_id, is_dev, fingerprint) in (select a, false, f from unnest($1::uuid[], $2::text[]) as w(a, f))",
      [asked.map(([, probe]) => probe.appId), asked.map(([fingerprint]) => fingerprint)],
    );
    const now = performance.now();
    for (const { fingerprint } of rows) {
      latency.add(now - waiting.get(fingerprint)!.acknowledged);
      waiting.delete(fingerprint);
    }
    for (const [fingerprint, probe] of waiting) {
      if (now - probe.acknowledged <= 60_000) continue;
      fail("probe's issue not there after 60 s");
      waiting.delete(fingerprint);
    }
  }
  await sending;
  await db.end();
  return {
    error_events_per_second: Math.round(fleetBatchesPerSecond * ERRORS_PER_FLEET_BATCH + probesPerSecond),
    new_issues_per_second: Math.round(probesPerSecond),
    events_per_second: Math.round(fleetEventsPerSecond + probesPerSecond * PROBE_EVENTS),
    seconds,
    failed,
    failures: statuses,
    latency: latency.summary(),
  };
}
