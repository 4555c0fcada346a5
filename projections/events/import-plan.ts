import type { EventsIngested, IngestedEvent } from "../../domain/ingest/events.ts";
import type { FactPart } from "./plan.ts";

/**
 * Prepares consecutive import facts for one replace statement, which cannot see its own rows: a
 * `client_event_id` repeated among them keeps only its last event (last write wins) under the id
 * of its first (the first created the event, the later ones updated it in place). Events without
 * one are all kept. Order and fact grouping are kept, so batch-wide values travel once per fact.
 */
export function planImport(facts: readonly EventsIngested[]): FactPart[] {
  const firstId = new Map<string, string>();
  const last = new Map<string, IngestedEvent>();
  for (const fact of facts) {
    for (const event of fact.events) {
      if (event.client_event_id === null) continue;
      const key = `${fact.app_id}/${event.client_event_id}`;
      if (!firstId.has(key)) firstId.set(key, event.id);
      last.set(key, event);
    }
  }
  const parts: FactPart[] = [];
  for (const fact of facts) {
    const events: IngestedEvent[] = [];
    for (const event of fact.events) {
      if (event.client_event_id === null) {
        events.push(event);
        continue;
      }
      const key = `${fact.app_id}/${event.client_event_id}`;
      if (last.get(key) !== event) continue;
      const id = firstId.get(key)!;
      events.push(id === event.id ? event : { ...event, id });
    }
    if (events.length > 0) parts.push({ fact, events });
  }
  return parts;
}
