import type { IngestedEvent } from "../../domain/ingest/events.ts";
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
 * Whether `event`, once kept, must be remembered in `event_dedup` because the probe of `events`
 * would not reach it. Timestamps are canonical ISO 8601 with milliseconds (the API normalizes
 * them), so this and the statements' SQL test (`"timestamp" < received_at - reach`) agree.
 */
export const beyondReach = (event: IngestedEvent, receivedMs: number): boolean =>
  event.client_event_id !== null && Date.parse(event.timestamp) < receivedMs - PROBE_REACH_MS;
