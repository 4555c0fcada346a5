import { decodeDomainEnvelope } from "../../domain/events.ts";
import { isJobType, jobScope } from "../../domain/jobs/catalogue.ts";
import { jobDecider, type JobCommand, type JobSlot } from "../../domain/jobs/decider.ts";
import { isJobFact, type JobFact } from "../../domain/jobs/events.ts";
import { unavailable } from "../../domain/shared/errors.ts";
import type { Actor, Envelope } from "../../domain/shared/envelope.ts";
import { newId } from "../../domain/shared/ids.ts";
import { append } from "../../streams/append.ts";
import type { Log } from "../../streams/connection.ts";
import { ConcurrencyError } from "../../streams/errors.ts";
import { lastMessageOn } from "../../streams/last-sequence.ts";

/** Which runs a command is about: the runs of one job type for one project (or the system). */
export type JobSlotName = { projectId: string | null; jobType: string };

/** What a job command did: its facts (none when nothing changed) and the sequence to wait for. */
export type JobCommandOutcome = { seq: number | null; facts: JobFact[] };

const ATTEMPTS = 10;

/** `<ns>.d.job.<scope>_<type>`: every run of one type for one project shares a subject. */
const jobSubject = (log: Log, slot: JobSlotName): string =>
  log.names.aggregateSubject("job", `${jobScope(slot.projectId)}_${slot.jobType}`);

/**
 * Decides a job command on the subject's last message and appends with its sequence as the
 * expected one; a lost race reads the new last message and decides again. No read model is
 * involved (domain/jobs/decider.ts says why), so the worker and the API run commands alike.
 * A trigger's message id is its run id: two workers firing the same schedule store it once.
 * @throws DomainError from the decider; unavailable after too many lost races
 * @throws LogUnavailableError when NATS cannot answer
 */
export async function runJobCommand(log: Log, slot: JobSlotName, command: JobCommand, actor: Actor): Promise<JobCommandOutcome> {
  // An unknown type has no subject; the decider refuses it from the empty state.
  if (!isJobType(slot.jobType)) return { seq: null, facts: jobDecider.decide(jobDecider.initialState, command) };
  const stream = log.names.stream("DOMAIN");
  const subject = jobSubject(log, slot);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const last = await lastMessageOn(log, stream, subject);
    const facts = jobDecider.decide(last ? slotOf(last.data) : jobDecider.initialState, command);
    if (facts.length === 0) return { seq: null, facts };
    const envelope: Envelope<JobFact> = {
      id: command.type === "TriggerJob" ? command.runId : newId(),
      at: new Date().toISOString(),
      actor,
      events: facts,
    };
    try {
      const appended = await append(log, subject, JSON.stringify(envelope), { expectedLastSeq: last?.seq ?? 0, msgId: envelope.id });
      return { seq: appended.seq, facts: appended.duplicate ? [] : facts };
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
    }
  }
  throw unavailable("too much contention on this job; retry");
}

function slotOf(data: Uint8Array): JobSlot {
  let state = jobDecider.initialState;
  for (const event of decodeDomainEnvelope(data).events) {
    if (isJobFact(event)) state = jobDecider.evolve(state, event);
  }
  return state;
}
