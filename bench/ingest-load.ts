import { randomUUID } from "node:crypto";
import { send, type Answer } from "./http-client.ts";
import { KeyPacer } from "./key-pacer.ts";
import { round, Samples } from "./stats.ts";

export type ClientKey = { clientKey: string; bundleId: string };

/** The mix of levels a fleet sends: mostly info. */
export const LEVELS = ["info", "info", "info", "debug", "warn", "error"] as const;
const SCREENS = ["Home", "Search", "Cart", "Checkout", "Profile"];
export const BATCH_EVENTS = 100;

/** Event `index` of every batch, with placeholders for what differs from batch to batch. */
function eventTemplate(index: number): string {
  return JSON.stringify({
    message: index % 10 === 0 ? `metric:checkout:${index % 20 === 0 ? "start" : "complete"}` : `Tapped button ${index % 7}`,
    level: LEVELS[index % LEVELS.length],
    session_id: "@session@",
    client_event_id: "@event@",
    user_id: "@user@",
    screen_name: SCREENS[index % SCREENS.length],
    custom_attributes: { button: `b${index % 7}`, experiment: "control" },
    environment: "web",
    app_version: "2.4.1",
    sdk_name: "web-sdk",
    sdk_version: "1.8.0",
    os_version: "macOS 15",
    device_model: "MacBookPro18,1",
    locale: "en_US",
    timestamp: "@now@",
  });
}

// The batch's JSON cut at its placeholders: odd entries name the value that goes there.
const BATCH_PARTS = Array.from({ length: BATCH_EVENTS }, (_, index) => eventTemplate(index)).join(",").split(/@(session|event|user|now)@/);

/**
 * One realistic SDK batch: 100 events of one session, each with its own client_event_id. Built
 * by filling a template rather than serializing objects: the load generator shares the machine's
 * two cores with the service it measures, and this costs a tenth of JSON.stringify.
 */
export function batchBody(bundleId: string, sessionId: string = randomUUID()): string {
  const userId = `user-${Math.floor(Math.random() * 50_000)}`;
  const now = new Date().toISOString();
  const values: Record<string, () => string> = { session: () => sessionId, event: randomUUID, user: () => userId, now: () => now };
  let body = `{"bundle_id":${JSON.stringify(bundleId)},"events":[`;
  for (let index = 0; index < BATCH_PARTS.length; index += 1) body += index % 2 === 0 ? BATCH_PARTS[index] : values[BATCH_PARTS[index]!]!();
  return `${body}]}`;
}

/** POSTs one batch to /v1/ingest as the app of `key`; status 0 when the request itself failed. */
export function postBatch(baseUrl: string, key: ClientKey, body: string): Promise<Answer> {
  return send(`${baseUrl}/v1/ingest`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key.clientKey}` },
    body,
  });
}

export type IngestFigures = {
  clients: number;
  seconds: number;
  requests: number;
  accepted_events: number;
  events_per_second: number;
  rate_limited: number;
  failed: number;
  latency: ReturnType<Samples["summary"]>;
};

/** Closed loop: `clients` concurrent senders post batches for `seconds` and count what was acknowledged. */
export async function runIngestLoad(baseUrl: string, keys: ClientKey[], clients: number, seconds: number): Promise<IngestFigures> {
  const pacer = new KeyPacer(keys, 9);
  const latency = new Samples();
  let requests = 0;
  let accepted = 0;
  let rateLimited = 0;
  let failed = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const key = await pacer.acquire();
        const body = batchBody(key.bundleId);
        const sent = performance.now();
        const answer = await postBatch(baseUrl, key, body);
        requests += 1;
        if (answer.status === 200) {
          latency.add(performance.now() - sent);
          accepted += (JSON.parse(answer.text) as { accepted: number }).accepted;
        } else if (answer.status === 429) rateLimited += 1;
        else failed += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return {
    clients,
    seconds: round(elapsed),
    requests,
    accepted_events: accepted,
    events_per_second: Math.round(accepted / elapsed),
    rate_limited: rateLimited,
    failed,
    latency: latency.summary(),
  };
}
