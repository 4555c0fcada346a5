import type { EventsIngested, IngestedEvent } from "../ingest/events.ts";
import { UUID_PATTERN } from "../shared/ids.ts";

export const METRIC_PHASES = ["start", "complete", "fail", "cancel", "record"] as const;
export type MetricPhase = (typeof METRIC_PHASES)[number];

/**
 * The custom attributes a metric event's operation fields are read from. They are the SDK's
 * contract (docs/decisions.md), so they never change; they are not repeated in `attributes`.
 */
const METRIC_ATTRIBUTES = { trackingId: "tracking_id", durationMs: "duration_ms", error: "error" } as const;
const RESERVED = new Set<string>(Object.values(METRIC_ATTRIBUTES));

// Slugs follow the definition rule (^[a-z0-9-]+$); 100 characters keeps every index entry small.
const METRIC_MESSAGE = /^metric:([a-z0-9-]{1,100}):(start|complete|fail|cancel|record)$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/** A metric event as the read model stores it; every value comes from the ingest fact. */
export type MetricEventRow = {
  id: string;
  project_id: string;
  app_id: string;
  client_event_id: string | null;
  session_id: string;
  user_id: string | null;
  api_key_id: string;
  metric_slug: string;
  phase: MetricPhase;
  tracking_id: string | null;
  duration_ms: number | null;
  error: string | null;
  attributes: Record<string, string>;
  environment: string;
  os_version: string | null;
  app_version: string | null;
  device_model: string | null;
  build_number: string | null;
  is_dev: boolean;
  timestamp: string;
  received_at: string;
};

/** `metric:<slug>:<phase>` split into its parts, or null for any other message. */
export function parseMetricMessage(message: string): { slug: string; phase: MetricPhase } | null {
  const match = METRIC_MESSAGE.exec(message);
  return match ? { slug: match[1]!, phase: match[2] as MetricPhase } : null;
}

/** A non-negative decimal number of milliseconds; anything else (empty, negative, "12ms") is no duration. */
export function parseDuration(value: string | undefined): number | null {
  const text = value?.trim();
  if (!text || !DECIMAL.test(text)) return null;
  const ms = Number(text);
  return Number.isFinite(ms) ? ms : null;
}

const nonEmpty = (value: string | undefined): string | null => (value === undefined || value.trim() === "" ? null : value);

/**
 * A tracking id as stored and filtered: UUIDs, which clients compare case-insensitively, in lower
 * case so a filter matches whatever case the SDK sent; any other id as it came.
 */
export const canonicalTrackingId = (value: string) => (UUID_PATTERN.test(value) ? value.toLowerCase() : value);

/** The metric event an ingested event stands for, or null when its message is not a metric message. */
export function metricEventOf(batch: EventsIngested, event: IngestedEvent): MetricEventRow | null {
  const parsed = parseMetricMessage(event.message);
  if (!parsed) return null;
  const custom = event.custom_attributes ?? {};
  const attributes: Record<string, string> = {};
  for (const [key, value] of Object.entries(custom)) if (!RESERVED.has(key)) attributes[key] = value;
  const trackingId = nonEmpty(custom[METRIC_ATTRIBUTES.trackingId]);
  return {
    id: event.id,
    project_id: batch.project_id,
    app_id: batch.app_id,
    client_event_id: event.client_event_id,
    session_id: event.session_id,
    user_id: event.user_id,
    api_key_id: batch.api_key_id,
    metric_slug: parsed.slug,
    phase: parsed.phase,
    tracking_id: trackingId === null ? null : canonicalTrackingId(trackingId),
    duration_ms: parseDuration(custom[METRIC_ATTRIBUTES.durationMs]),
    error: nonEmpty(custom[METRIC_ATTRIBUTES.error]),
    attributes,
    environment: event.environment,
    os_version: event.os_version,
    app_version: event.app_version,
    device_model: event.device_model,
    build_number: event.build_number,
    is_dev: event.is_dev,
    timestamp: event.timestamp,
    received_at: batch.received_at,
  };
}
