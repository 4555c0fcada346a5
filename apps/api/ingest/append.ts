import type { IngestedEvent } from "../../../domain/ingest/events.ts";
import { encodeFacts, ERROR_EVENTS_HEADER, type FactSource } from "../../../domain/ingest/fact.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { append } from "../../../streams/append.ts";
import { maxPayload } from "../../../streams/server-info.ts";
import type { ApiDeps } from "../deps.ts";
import type { IngestCaller } from "./caller.ts";

/** Room for the NATS message's headers and subject under the server's payload limit. */
const MESSAGE_HEADROOM_BYTES = 4_096;
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/**
 * Appends the valid events of an ingest or import batch to the app's subject as EventsIngested
 * facts and returns once JetStream has stored every one; nothing is appended for no events. An
 * anonymous id already claimed is sent on as the claiming user (SPEC Ingest rule 6).
 * @throws LogUnavailableError when NATS cannot take the write
 */
export async function appendBatch(
  deps: ApiDeps,
  caller: IngestCaller,
  events: IngestedEvent[],
  source: Pick<FactSource, "mode" | "receivedAt" | "countryCode">,
): Promise<void> {
  if (events.length === 0) return;
  await deps.claims.reattribute(caller.app.project_id, events);
  const facts = encodeFacts(
    { ...source, batchId: newId(), app: caller.app, apiKeyId: caller.keyId },
    events,
    (maxPayload(deps.log) ?? DEFAULT_MAX_PAYLOAD) - MESSAGE_HEADROOM_BYTES,
  );
  const subject = deps.log.names.ingestSubject(caller.app.project_id, caller.app.id);
  for (const fact of facts) await append(deps.log, subject, fact.payload, { msgId: fact.id, headers: { [ERROR_EVENTS_HEADER]: String(fact.errors) } });
}
