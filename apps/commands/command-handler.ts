import type { DomainEvent } from "../../domain/events.ts";
import type { IdentityFact } from "../../domain/identity/events.ts";
import { unavailable } from "../../domain/shared/errors.ts";
import { append } from "../../streams/append.ts";
import { ConcurrencyError } from "../../streams/errors.ts";
import {
  domainRun,
  identityRun,
  isModelCommand,
  modelRun,
  type DomainCommand,
  type IdentitySubjectCommand,
  type ModelCommand,
  type Run,
  type Target,
} from "./command-targets.ts";
import type { CommandDeps } from "./deps.ts";

/**
 * What a command did: the sequence of its message (null when nothing changed), its facts, the
 * state after them (what a caller answers with) and the command as decided on the last attempt.
 */
export type Handled<Fact = DomainEvent, State = unknown, Command = unknown> = { seq: number | null; facts: Fact[]; state: State; command: Command };

/** An attempt that lost: another writer got there first, or the read model superseded the fact. */
const DECIDE_AGAIN = Symbol("decide again");

/**
 * Runs a command the one way every write runs: locate the aggregate's subject, read its version,
 * load the state, decide, append with that version as the expected last subject sequence and the
 * message id of the attempt. A lost race waits for the read model to reach the winner's fact and
 * decides again; so does a fact the read model superseded. Answers once the read models the
 * facts touch have applied them (read-your-writes) and this instance's caches know them. No
 * facts, no append.
 * @throws DomainError from the decider; unavailable after too many lost races or when the read models lag
 */
export function handleCommand<State, Command>(deps: CommandDeps, command: DomainCommand<State, Command>): Promise<Handled<DomainEvent, State, Command>>;
export function handleCommand<State, Command>(deps: CommandDeps, command: IdentitySubjectCommand<State, Command>): Promise<Handled<IdentityFact, State, Command>>;
export function handleCommand<State, Command>(deps: CommandDeps, command: ModelCommand<State, Command>): Promise<Handled<DomainEvent, State, Command>>;
export function handleCommand<State, Command>(deps: CommandDeps, command: AnyCommand<State, Command>) {
  if (isIdentity(command)) return run(deps, identityRun(deps, command));
  if (isModel(command)) return run(deps, modelRun(deps, command));
  return run(deps, domainRun(deps, command));
}

type AnyCommand<State, Command> = DomainCommand<State, Command> | IdentitySubjectCommand<State, Command> | ModelCommand<State, Command>;

const isIdentity = <State, Command>(command: AnyCommand<State, Command>): command is IdentitySubjectCommand<State, Command> => command.aggregate.type === "identity";
const isModel = <State, Command>(command: AnyCommand<State, Command>): command is ModelCommand<State, Command> => isModelCommand(command);

async function run<State, Command, Fact>(deps: CommandDeps, command: Run<State, Command, Fact>): Promise<Handled<Fact, State, Command>> {
  const { target } = command;
  for (let attempt = 1; attempt <= target.attempts; attempt += 1) {
    const id = await target.locate();
    const subject = target.subject(id);
    const outcome = await target.serialize(subject, () => decideOnce(deps, command, id, subject));
    if (outcome !== DECIDE_AGAIN) return outcome;
  }
  throw unavailable(target.exhausted);
}

async function decideOnce<State, Command, Fact>(
  deps: CommandDeps,
  { target, decider, load, build }: Run<State, Command, Fact>,
  id: string,
  subject: string,
): Promise<Handled<Fact, State, Command> | typeof DECIDE_AGAIN> {
  // The version is read before the state: a state newer than the version makes the append fail
  // and the command is decided again, so no decision is made on a state older than it expects.
  const version = await target.version(subject);
  if ((await target.locate()) !== id) return DECIDE_AGAIN;
  const state = await load(id);
  const command = await build(state, id);
  const facts = decider.decide(state, command);
  const decided = { facts, state: facts.reduce(decider.evolve, state), command };
  if (facts.length === 0) return { seq: null, ...decided };
  const { payload, msgId } = target.message(facts);
  const seq = await appendExpecting(deps, target, subject, payload, msgId, version);
  if (seq === null) return DECIDE_AGAIN;
  await waitUntilVisible(deps, seq, target.readModels(facts));
  if (await target.superseded(facts)) return DECIDE_AGAIN;
  target.settled(facts);
  return { seq, ...decided };
}

/**
 * Appends expecting `version` as the subject's last sequence. Returns the message's sequence, or
 * null when another writer got there first (after waiting for the read model to reach it).
 */
async function appendExpecting<Fact>(deps: CommandDeps, target: Target<Fact>, subject: string, payload: string, msgId: string, version: number): Promise<number | null> {
  let expected = version;
  for (let tries = 1; ; tries += 1) {
    try {
      return (await append(deps.log, subject, payload, { expectedLastSeq: expected, msgId })).seq;
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      // The subject's last message is older than the one the read model applied: the stream no
      // longer holds it (age limit or purge). Nothing newer was written, so the stored last
      // sequence is the one to expect; once, as a second conflict is a lost race.
      if (target.dropsMessages && tries === 1 && error.actual !== undefined && error.actual < expected) {
        expected = error.actual;
        continue;
      }
      await deps.progress.waitFor([target.versionModel], error.actual ?? expected + 1, 2_000);
      return null;
    }
  }
}

/** Waits until every one of `readModels` includes `seq`. @throws DomainError unavailable after the bounded wait */
export async function waitUntilVisible(deps: CommandDeps, seq: number, readModels: string[]): Promise<void> {
  const visible = await deps.progress.waitFor(readModels, seq, deps.config.readYourWritesTimeoutMs);
  if (!visible) throw unavailable("the change was saved but the read models are behind; retry the read shortly");
}
