import type { IngestedEvent } from "../../../domain/ingest/events.ts";
import { importOutcome, type ImportOutcome } from "../../../domain/ingest/import-outcome.ts";
import { storedClientEventIds } from "../../../projections/events/import-lookup.ts";
import { lastSequenceOn } from "../../../streams/last-sequence.ts";
import type { ApiDeps } from "../deps.ts";

/** How long an import waits for earlier batches of its app to be projected before classifying anyway. */
const CATCH_UP_WAIT_MS = 2_000;

/**
 * Splits an import batch into new and updated events, as the events read model will apply it.
 * The read model knows only what it has projected, so the batch first waits (at most 2 s) until
 * the events projector has applied every fact already on the app's subject: a script importing
 * batch after batch sees its earlier batches. A batch racing another one with the same ids (or
 * arriving while the projector lags more than that) may count an event as new that ends up
 * updating one; the stored result is the same either way (see docs/decisions.md).
 */
export async function classifyImport(deps: ApiDeps, subject: string, appId: string, events: readonly IngestedEvent[]): Promise<ImportOutcome> {
  const ids = new Set<string>();
  for (const event of events) if (event.client_event_id !== null) ids.add(event.client_event_id);
  if (ids.size === 0) return importOutcome(events, ids);
  const head = await lastSequenceOn(deps.log, deps.log.names.stream("INGEST"), subject);
  if (head > 0) await deps.progress.waitFor(["events"], head, Math.min(CATCH_UP_WAIT_MS, deps.config.readYourWritesTimeoutMs));
  return importOutcome(events, await storedClientEventIds(deps.pool, appId, [...ids]));
}
