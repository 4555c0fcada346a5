import type { EventsIngested } from "../../domain/ingest/events.ts";
import { isExpired, type BatchCutoffs } from "../retention/cutoffs.ts";
import type { FactPart } from "./plan.ts";

/** An imported event's key whose stored event an import moved past its project's retention. */
export type ForgottenKey = { app_id: string; client_event_id: string };

/**
 * Ingested facts without their events past the project's retention: as if they had never been
 * sent, so they neither take a row nor make a later event a duplicate.
 */
export function retainedFacts(facts: readonly EventsIngested[], cutoffs: BatchCutoffs): EventsIngested[] {
  const kept: EventsIngested[] = [];
  for (const fact of facts) {
    const since = cutoffs.since(fact.project_id);
    if (since === null) {
      kept.push(fact);
      continue;
    }
    const events = fact.events.filter((event) => !isExpired(event.timestamp, since));
    if (events.length === fact.events.length) kept.push(fact);
    else if (events.length > 0) kept.push({ ...fact, events });
  }
  return kept;
}

/**
 * Splits planned import parts (after last-write-wins, import-plan.ts) into the events to write and
 * the keys of imported events past their project's retention. An import updates in place: an
 * event moved to an expired time is removed, as if written and then expired, so its key still
 * deletes the stored event while nothing is written for it.
 */
export function retainedImport(parts: readonly FactPart[], cutoffs: BatchCutoffs): { parts: FactPart[]; forgotten: ForgottenKey[] } {
  const written: FactPart[] = [];
  const forgotten: ForgottenKey[] = [];
  for (const part of parts) {
    const since = cutoffs.since(part.fact.project_id);
    if (since === null) {
      written.push(part);
      continue;
    }
    const events = [];
    for (const event of part.events) {
      if (!isExpired(event.timestamp, since)) events.push(event);
      else if (event.client_event_id !== null) forgotten.push({ app_id: part.fact.app_id, client_event_id: event.client_event_id });
    }
    if (events.length === part.events.length) written.push(part);
    else if (events.length > 0) written.push({ fact: part.fact, events });
  }
  return { parts: written, forgotten };
}
