import type { DomainEvent } from "../../domain/events.ts";
import type { Actor, Envelope } from "../../domain/shared/envelope.ts";
import { unavailable } from "../../domain/shared/errors.ts";
import { newId } from "../../domain/shared/ids.ts";
import { aggregateVersion } from "../../projections/directory/queries.ts";
import { domainProjections } from "../../projections/registry.ts";
import { append } from "../../streams/append.ts";
import { ConcurrencyError } from "../../streams/errors.ts";
import { actorOf } from "./auth/access.ts";
import type { Principal } from "./auth/principal.ts";
import type { ApiDeps } from "./deps.ts";

const ATTEMPTS = 6;

export type Command = {
  aggregate: string;
  id: string;
  actor: Actor;
  /** Loads the aggregate's state from the read model and decides; runs again after a lost race. */
  decide: () => Promise<DomainEvent[]>;
};

/**
 * Runs a command against one aggregate: read its version, decide from the read model, append with
 * that version as the expected last subject sequence. A lost race (another writer appended first)
 * waits for the read model to catch up and decides again. Answers once every DOMAIN read model has
 * applied the fact (read-your-writes). Returns the fact's sequence, or null when nothing changed.
 */
export async function runCommand(deps: ApiDeps, command: Command): Promise<number | null> {
  const subject = deps.log.names.aggregateSubject(command.aggregate, command.id);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const version = await aggregateVersion(deps.pool, subject);
    const events = await command.decide();
    if (events.length === 0) return null;
    const envelope: Envelope<DomainEvent> = { id: newId(), at: new Date().toISOString(), actor: command.actor, events };
    try {
      const ack = await append(deps.log, subject, JSON.stringify(envelope), { expectedLastSeq: version, msgId: envelope.id });
      await waitUntilVisible(deps, ack.seq);
      // The directory has applied the fact: a key it revokes stops working before the answer.
      deps.keyCache.forget(events);
      return ack.seq;
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      await deps.progress.waitFor(["directory"], error.actual ?? version + 1, 2_000);
    }
  }
  throw unavailable("too much contention on this resource; retry");
}

/**
 * A command on a team's subject, which carries the team's whole control plane (members,
 * invitations, projects, apps, keys, definitions), recorded as made by `caller`.
 */
export const teamCommand = (deps: ApiDeps, caller: Principal, teamId: string, decide: () => Promise<DomainEvent[]>) =>
  runCommand(deps, { aggregate: "team", id: teamId, actor: actorOf(caller), decide });

/** Waits until the DOMAIN read models include `seq`. @throws DomainError unavailable after the bounded wait */
export async function waitUntilVisible(deps: ApiDeps, seq: number): Promise<void> {
  const visible = await deps.progress.waitFor(domainProjections(), seq, deps.config.readYourWritesTimeoutMs);
  if (!visible) throw unavailable("the change was saved but the read models are behind; retry the read shortly");
}
