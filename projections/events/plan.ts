import type { EventsIngested, IngestedEvent } from "../../domain/ingest/events.ts";
import { DEDUP_WINDOW_MS } from "../../domain/ingest/rules.ts";

/** Events of one fact that go into one insert statement. */
export type FactPart = { fact: EventsIngested; events: IngestedEvent[] };

/** One multi-row insert: its parts and the extremes the statement and partition upkeep need. */
export type Chunk = { parts: FactPart[]; rows: number; minReceivedMs: number; maxReceivedMs: number };

/**
 * Splits a projector batch into insert statements of at most `maxRows` events, in stream order.
 * A statement does not see its own rows, so the dedup table cannot catch a `client_event_id`
 * repeated inside one statement: repeats within the 48-hour window are dropped here, and a repeat
 * beyond the window (possible only when replaying facts days apart) starts a new statement, which
 * then sees the earlier one's rows.
 */
export function planChunks(facts: readonly EventsIngested[], maxRows: number): Chunk[] {
  const chunks: Chunk[] = [];
  let current: Chunk | undefined;
  let seen = new Map<string, number>();

  const startChunk = (receivedMs: number): Chunk => {
    current = { parts: [], rows: 0, minReceivedMs: receivedMs, maxReceivedMs: receivedMs };
    chunks.push(current);
    seen = new Map();
    return current;
  };

  for (const fact of facts) {
    const receivedMs = Date.parse(fact.received_at);
    let part: FactPart | undefined;
    for (const event of fact.events) {
      let chunk = current ?? startChunk(receivedMs);
      const key = event.client_event_id === null ? null : `${fact.app_id}/${event.client_event_id}`;
      const firstSeen = key === null ? undefined : seen.get(key);
      if (firstSeen !== undefined && receivedMs - firstSeen <= DEDUP_WINDOW_MS) continue;
      if (firstSeen !== undefined || chunk.rows >= maxRows) {
        chunk = startChunk(receivedMs);
        part = undefined;
      }
      if (!part || chunk.parts.at(-1) !== part) {
        part = { fact, events: [] };
        chunk.parts.push(part);
      }
      part.events.push(event);
      chunk.rows += 1;
      chunk.minReceivedMs = Math.min(chunk.minReceivedMs, receivedMs);
      chunk.maxReceivedMs = Math.max(chunk.maxReceivedMs, receivedMs);
      if (key !== null) seen.set(key, receivedMs);
    }
  }
  return chunks;
}
