import { MAX_INGEST_PAST_MS } from "../../domain/ingest/rules.ts";

/**
 * How far before its receipt a kept event's timestamp can lie and still be found by the dedup
 * probe of `events` (insert.ts). The API rejects ingested events more than 30 days in the past,
 * so an event kept with receipt R has a timestamp of at least R - 30 days; the probe for a receipt
 * R' looks at kept events received from R' - 48 hours on, hence at the monthly partitions from
 * R' - 48 hours - 30 days on. Imported events may be of any age: those whose timestamp lies
 * further back are remembered in `event_dedup`, which the probe reads as well.
 */
export const PROBE_REACH_MS = MAX_INGEST_PAST_MS;

/**
 * Tells whether an event of a fact received at `receivedMs`, once kept, must be remembered in
 * `event_dedup` because the probe of `events` would not reach it. Timestamps are canonical
 * ISO 8601 in UTC with milliseconds (the API normalizes them), so they compare as strings, in
 * time order, with the fact's cutoff: no date is parsed per event on the projector's hot path,
 * and this agrees with the statements' SQL test (`"timestamp" < received_at - reach`).
 */
export function outOfReach(receivedMs: number): (event: { client_event_id: string | null; timestamp: string }) => boolean {
  const cutoff = new Date(receivedMs - PROBE_REACH_MS).toISOString();
  return (event) => event.client_event_id !== null && event.timestamp < cutoff;
}
