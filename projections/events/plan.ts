import type { EventsIngested, IngestedEvent } from "../../domain/ingest/events.ts";

/** Events of one fact that go into one insert statement. */
export type FactPart = { fact: EventsIngested; events: IngestedEvent[] };

/** One multi-row insert: its parts and the extremes the statement and partition upkeep need. */
export type Chunk = { parts: FactPart[]; rows: number; minReceivedMs: number; maxReceivedMs: number };

/**
 * Splits a projector batch into insert statements of at most `maxRows` events, in stream order.
 * A statement does not see its own rows, so a `client_event_id` repeated inside one is decided
 * here, exactly as the database would decide it one event at a time. The earlier occurrence went
 * into the statement and is either kept or a duplicate of a stored event received at most 48 hours
 * before it. A repeat received no later than that occurrence is a duplicate either way (whatever
 * the earlier one is a duplicate of, or the earlier one itself, lies within its window) and is
 * dropped. A repeat received later may fall outside the window of what made the earlier one a
 * duplicate, so it starts a new statement, which sees the earlier statement's rows. Repeats within
 * one fact share its receipt time and are dropped; a later fact repeating an event costs one
 * extra statement. The outcome does not depend on how the stream was cut into batches.
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
      const earlier = key === null ? undefined : seen.get(key);
      if (earlier !== undefined && receivedMs <= earlier) continue;
      if (earlier !== undefined || chunk.rows >= maxRows) {
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
