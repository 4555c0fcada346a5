import type { AdsFact } from "../../domain/ads/events.ts";
import { SYSTEM_ACTOR, type Envelope } from "../../domain/shared/envelope.ts";
import { derivedId } from "../../domain/shared/ids.ts";
import { append } from "../../streams/append.ts";
import { waitUntilVisible } from "./command-handler.ts";
import type { CommandDeps } from "./deps.ts";

/**
 * Appends one adnet_sync run's facts (domain/ads/sync.ts) on `<ns>.d.ads.<project>`, one message
 * each, and waits until the `ads` read model has them. No decision reads a state here: the pull
 * is the network's word, and one run per project at a time (the job rule) orders the pulls, so
 * there is no expected sequence. Message ids derive from the run and the position, so a publish
 * retried after a lost acknowledgement is stored once.
 * @throws LogUnavailableError when NATS cannot take the write; DomainError unavailable when the read model lags
 */
export async function appendAdsSync(deps: CommandDeps, runId: string, projectId: string, facts: readonly AdsFact[]): Promise<void> {
  const subject = deps.log.names.aggregateSubject("ads", projectId);
  let last = 0;
  for (const [index, fact] of facts.entries()) {
    const envelope: Envelope<AdsFact> = { id: derivedId(`adnet_sync:${runId}:${index}`), at: new Date().toISOString(), actor: SYSTEM_ACTOR, events: [fact] };
    last = (await append(deps.log, subject, JSON.stringify(envelope), { msgId: envelope.id })).seq;
  }
  if (last > 0) await waitUntilVisible(deps, last, ["ads"]);
}
