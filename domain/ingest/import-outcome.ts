import type { IngestedEvent } from "./events.ts";

export type ImportOutcome = { accepted: number; updated: number };

/**
 * How an import batch's valid events split into new and updated ones, given the
 * `client_event_id`s the app already holds. An event without one is always new; a repeat inside
 * the batch updates the event its first occurrence created (or updated), exactly as the
 * projection applies them in order.
 */
export function importOutcome(events: readonly IngestedEvent[], existing: ReadonlySet<string>): ImportOutcome {
  const seen = new Set<string>();
  let accepted = 0;
  let updated = 0;
  for (const { client_event_id: id } of events) {
    if (id !== null && (existing.has(id) || seen.has(id))) updated += 1;
    else accepted += 1;
    if (id !== null) seen.add(id);
  }
  return { accepted, updated };
}
