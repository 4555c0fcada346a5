import { invalid } from "../shared/errors.ts";
import { checkBundle, type TargetApp } from "./bundle.ts";
import type { IngestedEvent } from "./events.ts";
import { normalizeEvent, type NormalizeContext } from "./normalize.ts";
import type { Platform } from "./rules.ts";

/**
 * Checks the request as a whole; a failure here rejects the batch (4xx) instead of single events.
 * Returns the raw events for `normalizeBatch`.
 * @throws DomainError invalid for a malformed body or a missing bundle_id, forbidden for another app's bundle_id
 */
export function readIngestRequest(body: unknown, app: TargetApp, maxEvents: number): unknown[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("body must be a JSON object");
  const { bundle_id: bundleId, events } = body as Record<string, unknown>;
  checkBundle(app, bundleId);
  return eventsOf(events, maxEvents);
}

/**
 * Checks an import request as a whole: an import key is bound to its app, so no bundle_id is
 * needed, and one sent is ignored.
 * @throws DomainError invalid for a malformed body
 */
export function readImportRequest(body: unknown, maxEvents: number): unknown[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("body must be a JSON object");
  return eventsOf((body as Record<string, unknown>).events, maxEvents);
}

function eventsOf(events: unknown, maxEvents: number): unknown[] {
  if (events === undefined || events === null) throw invalid("events is required");
  if (!Array.isArray(events)) throw invalid("events must be an array");
  if (events.length > maxEvents) throw invalid(`events must contain at most ${maxEvents} events`);
  return events;
}

export type RejectedEvent = { index: number; message: string };

export type BatchResult = {
  /** Valid events to append, in request order, without repeats of a `client_event_id`. */
  events: IngestedEvent[];
  accepted: number;
  rejected: number;
  errors: RejectedEvent[];
};

/**
 * Normalizes every event of a batch. Invalid events are reported as `events[<i>]: <reason>` and
 * the rest still go through. In ingest mode a `client_event_id` repeated inside the batch keeps
 * its first event; the repeats count as accepted (a duplicate is skipped silently, exactly as a
 * duplicate of an earlier batch is skipped by the read model).
 */
export function normalizeBatch(raw: readonly unknown[], context: NormalizeContext): BatchResult {
  const events: IngestedEvent[] = [];
  const errors: RejectedEvent[] = [];
  const seen = new Set<string>();
  raw.forEach((item, index) => {
    const result = normalizeEvent(item, context);
    if (!result.ok) {
      errors.push({ index, message: `events[${index}]: ${result.reason}` });
      return;
    }
    const clientId = result.event.client_event_id;
    if (context.mode === "ingest" && clientId !== null) {
      if (seen.has(clientId)) return;
      seen.add(clientId);
    }
    events.push(result.event);
  });
  return { events, accepted: raw.length - errors.length, rejected: errors.length, errors };
}

/**
 * `country_code` from the edge proxy's header: a two-letter code, or null when the header is
 * missing, malformed, XX (unknown) or T1 (Tor). Backend apps call from servers, whose location
 * says nothing about the user, so theirs is always null. Client-sent values are never read.
 */
export function countryCode(header: string | string[] | undefined, platform: Platform): string | null {
  if (platform === "backend") return null;
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toUpperCase();
  if (!value || !/^[A-Z]{2}$/.test(value) || value === "XX") return null;
  return value;
}
