import { randomUUID } from "node:crypto";
import { encodeFacts } from "../domain/ingest/fact.ts";
import type { IngestedEvent } from "../domain/ingest/events.ts";
import { timeOrderedId } from "../domain/shared/ids.ts";
import { append } from "../streams/append.ts";
import type { Log } from "../streams/connection.ts";
import type { Fleet } from "./fleet.ts";
import { LEVELS } from "./ingest-load.ts";

const HOUR_MS = 3_600_000;
const PER_FACT = 500;
const IN_FLIGHT = 32;

const SESSION_EVENTS = 100;

/**
 * How far back the seeded history reaches: the last 24 hours. The drained table then doubles as
 * the "spread over 24 h" layout of the count targets (a since=24h count reads all of it, a since=1h
 * count a 24th), so the benchmark loads its millions of events once instead of seeding a second set
 * for the counts, which would double the longest phase on two shared cores.
 */
export const HISTORY_SPAN_MS = 24 * HOUR_MS;

/** One SDK session as it reaches the service: `size` events of one user, seconds apart, starting somewhere in the last `spanMs`. */
export function historicSession(now: number, size: number, spanMs = HISTORY_SPAN_MS): IngestedEvent[] {
  const start = now - Math.floor(Math.random() * spanMs);
  const user = Math.floor(Math.random() * 200_000);
  const sessionId = randomUUID();
  return Array.from({ length: size }, (_, index) => {
    const at = Math.min(start + index * 2_000, now);
    return {
      id: timeOrderedId(at),
      client_event_id: randomUUID(),
      session_id: sessionId,
      user_id: `user-${user}`,
      level: LEVELS[(user + index) % LEVELS.length]!,
      source_module: null,
      message: `Viewed screen ${index % 9}`,
      screen_name: "Home",
      custom_attributes: { plan: user % 3 === 0 ? "pro" : "free" },
      environment: "web",
      os_version: "macOS 15",
      app_version: `2.${user % 5}.0`,
      sdk_name: "web-sdk",
      sdk_version: "1.8.0",
      build_number: null,
      device_model: "MacBookPro18,1",
      locale: "en_US",
      is_dev: false,
      timestamp: new Date(at).toISOString(),
    };
  });
}

/**
 * Fills the events read model to `count` extra events by appending EventsIngested facts straight to
 * the INGEST stream (as the API would after validating them), so the projector's sustained
 * throughput is what the drain measures. Returns when the last fact is acknowledged.
 */
export async function seedHistory(log: Log, fleet: Fleet, count: number): Promise<void> {
  const now = Date.now();
  let left = count;
  const lanes = Array.from({ length: IN_FLIGHT }, async () => {
    while (left > 0) {
      const size = Math.min(PER_FACT, left);
      left -= size;
      const app = fleet.apps[Math.floor(Math.random() * fleet.apps.length)]!;
      const events: IngestedEvent[] = [];
      while (events.length < size) events.push(...historicSession(now, Math.min(SESSION_EVENTS, size - events.length)));
      const source = {
        batchId: randomUUID(),
        mode: "ingest" as const,
        app: { id: app.id, team_id: fleet.teamId, project_id: fleet.projectId, platform: "web" as const },
        apiKeyId: fleet.appKeyIds[app.id]!,
        receivedAt: new Date().toISOString(),
        countryCode: "DE",
      };
      for (const fact of encodeFacts(source, events, 900_000)) {
        await append(log, log.names.ingestSubject(fleet.projectId, app.id), fact.payload, { msgId: fact.id });
      }
    }
  });
  await Promise.all(lanes);
}
