import { eventsIngestedHeader, type EventsIngested } from "../ingest/events.ts";
import { identityFact, type IdentityFact } from "./events.ts";

/** One INGEST message by kind. Facts of types a reader does not know are `other`, to be skipped. */
export type IngestFact = { kind: "events"; fact: EventsIngested } | { kind: "identity"; fact: IdentityFact } | { kind: "other"; type: unknown };

const decoder = new TextDecoder();

/**
 * Reads an INGEST message of any type: ingest batches and identity facts share the stream so
 * that every ingest read model sees a claim exactly between the events before and after it.
 * @throws SyntaxError or ZodError for a message that is not JSON or not a valid fact of its type
 */
export function decodeIngestFact(data: Uint8Array): IngestFact {
  const raw = JSON.parse(decoder.decode(data)) as { type?: unknown };
  switch (raw?.type) {
    case "EventsIngested":
      return { kind: "events", fact: eventsIngestedHeader.parse(raw) as EventsIngested };
    case "UserClaimed":
    case "UserPropertiesChanged":
    case "UserRevenueSynced":
      return { kind: "identity", fact: identityFact.parse(raw) };
    default:
      return { kind: "other", type: raw?.type };
  }
}
