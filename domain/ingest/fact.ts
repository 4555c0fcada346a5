import { derivedId } from "../shared/ids.ts";
import type { EventsIngested, IngestedEvent, IngestMode } from "./events.ts";
import type { Platform } from "./rules.ts";

export type FactSource = {
  batchId: string;
  mode: IngestMode;
  app: { id: string; team_id: string; project_id: string; platform: Platform };
  apiKeyId: string;
  receivedAt: string;
  countryCode: string | null;
};

/** The NATS header of an INGEST message that counts its error-level events (absent on messages from before it existed). */
export const ERROR_EVENTS_HEADER = "Error-Events";

/** One fact to append; `errors`: its error-level events, which the issue detector reads without decoding the payload. */
export type EncodedFact = { id: string; payload: string; events: number; errors: number };

const errorsIn = (events: readonly IngestedEvent[]) => {
  let count = 0;
  for (const event of events) if (event.level === "error") count += 1;
  return count;
};

/**
 * Serializes a batch as EventsIngested facts no larger than `maxBytes` each (the NATS message
 * limit). A batch nearly always fits one message; one that does not (up to 1 MiB of input plus the
 * server-added fields) is split, and each part gets its own id derived from the batch id, so a
 * retried publish of a part is still deduplicated by JetStream.
 */
export function encodeFacts(source: FactSource, events: readonly IngestedEvent[], maxBytes: number): EncodedFact[] {
  const whole = encode(source, source.batchId, events);
  if (Buffer.byteLength(whole) <= maxBytes || events.length <= 1) return [{ id: source.batchId, payload: whole, events: events.length, errors: errorsIn(events) }];
  const parts: EncodedFact[] = [];
  const split = (slice: readonly IngestedEvent[]) => {
    const id = derivedId(`${source.batchId}:${parts.length}:${slice.length}`);
    const payload = encode(source, id, slice);
    if (Buffer.byteLength(payload) <= maxBytes || slice.length <= 1) {
      parts.push({ id, payload, events: slice.length, errors: errorsIn(slice) });
      return;
    }
    const middle = Math.ceil(slice.length / 2);
    split(slice.slice(0, middle));
    split(slice.slice(middle));
  };
  split(events);
  return parts;
}

function encode(source: FactSource, id: string, events: readonly IngestedEvent[]): string {
  const fact: EventsIngested = {
    type: "EventsIngested",
    v: 1,
    id,
    mode: source.mode,
    team_id: source.app.team_id,
    project_id: source.app.project_id,
    app_id: source.app.id,
    platform: source.app.platform,
    api_key_id: source.apiKeyId,
    received_at: source.receivedAt,
    country_code: source.countryCode,
    events: events as IngestedEvent[],
  };
  return JSON.stringify(fact);
}
