import type { DomainEvent } from "../../domain/events.ts";
import type { Decider } from "../../domain/shared/decider.ts";
import type { Actor, Envelope } from "../../domain/shared/envelope.ts";
import { unavailable } from "../../domain/shared/errors.ts";
import { newId } from "../../domain/shared/ids.ts";
import { aggregateVersion } from "../../projections/directory/queries.ts";
import { domainProjections } from "../../projections/registry.ts";
import { append } from "../../streams/append.ts";
import { ConcurrencyError } from "../../streams/errors.ts";
import type { ApiDeps } from "./deps.ts";

const ATTEMPTS = 6;

/**
 * One command against one aggregate of the DOMAIN stream. `team` orders the team's whole control
 * plane (members, invitations, projects, apps, keys, definitions: docs/architecture.md says why);
 * `user` a user's own account.
 */
export type DomainCommand<State, Command> = {
  aggregate: { type: "user" | "team"; id: string };
  decider: Decider<State, Command, DomainEvent>;
  /**
   * Reads the state the decision needs from the read model, checking on the way that the caller
   * may act on it (a role can change between two attempts). Runs again after a lost race.
   */
  load: () => Promise<State>;
  command: Command;
  actor: Actor;
};

export type Handled = { seq: number | null; facts: DomainEvent[] };

/**
 * Runs a command the one way every write runs: read the aggregate's version, load the state,
 * decide, append with that version as the expected last subject sequence and the command id as
 * the message id. A lost race (another writer appended first) waits for the read model to reach
 * the winner's fact and decides again. Answers once every DOMAIN read model has applied the facts
 * (read-your-writes) and this instance has dropped the credentials they revoke. No facts, no append.
 * @throws DomainError from the decider; unavailable after too many lost races or when the read models lag
 */
export async function handleCommand<State, Command>(deps: ApiDeps, command: DomainCommand<State, Command>): Promise<Handled> {
  const subject = deps.log.names.aggregateSubject(command.aggregate.type, command.aggregate.id);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    // The version is read before the state: a state newer than the version makes the append fail
    // and the command is decided again, so no decision is made on a state older than it expects.
    const version = await aggregateVersion(deps.pool, subject);
    const facts = command.decider.decide(await command.load(), command.command);
    if (facts.length === 0) return { seq: null, facts };
    const envelope: Envelope<DomainEvent> = { id: newId(), at: new Date().toISOString(), actor: command.actor, events: facts };
    try {
      const ack = await append(deps.log, subject, JSON.stringify(envelope), { expectedLastSeq: version, msgId: envelope.id });
      await waitUntilVisible(deps, ack.seq);
      deps.keyCache.forget(facts);
      return { seq: ack.seq, facts };
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      await deps.progress.waitFor(["directory"], error.actual ?? version + 1, 2_000);
    }
  }
  throw unavailable("too much contention on this resource; retry");
}

/** Waits until the DOMAIN read models include `seq`. @throws DomainError unavailable after the bounded wait */
export async function waitUntilVisible(deps: ApiDeps, seq: number): Promise<void> {
  const visible = await deps.progress.waitFor(domainProjections(), seq, deps.config.readYourWritesTimeoutMs);
  if (!visible) throw unavailable("the change was saved but the read models are behind; retry the read shortly");
}
