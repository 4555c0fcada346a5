import { decodeIngestFact, type IngestFact } from "../../domain/identity/ingest-fact.ts";
import { eventsIngestedHeader } from "../../domain/ingest/events.ts";

/** Where an encoded EventsIngested fact's event list starts: `encodeFacts` writes it as the last key. */
const EVENTS_KEY = Buffer.from(',"events":[');

/**
 * Reads an INGEST message for a read model that derives rows only from events whose message starts
 * with `messagePrefix`. Most ingest batches hold no such event, and decoding their event list is
 * nearly all the cost of reading them, so the bytes are searched first: facts are compact
 * `JSON.stringify` output, in which such an event always reads `"message":"<prefix>` (none of the
 * prefix's characters is escaped). Without it, only the header before the event list is parsed
 * and the batch comes back with no events. Anything else is decoded whole: a match (possibly a
 * custom attribute named `message`), an import (replacing needs the keys of all its events),
 * identity facts, and any message whose header does not parse on its own.
 */
export function decodeForPrefix(data: Uint8Array, messagePrefix: Buffer): IngestFact {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes.indexOf(messagePrefix) === -1) {
    const header = headerOf(bytes);
    if (header?.mode === "ingest") return { kind: "events", fact: { ...header, events: [] } };
  }
  return decodeIngestFact(data);
}

/** The `"message":"<prefix>` to search for. */
export const messageNeedle = (prefix: string) => Buffer.from(`"message":${JSON.stringify(prefix).slice(0, -1)}`);

function headerOf(bytes: Buffer) {
  const end = bytes.indexOf(EVENTS_KEY);
  if (end === -1) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(`${bytes.toString("utf8", 0, end)},"events":[]}`);
  } catch {
    return undefined;
  }
  const parsed = eventsIngestedHeader.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}
