import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import type { Log } from "./connection.ts";
import { LogUnavailableError } from "./errors.ts";
import { NATS } from "./nats-handles.ts";

/**
 * The stream sequence of the last message on `subject`, 0 when there is none.
 * @throws LogUnavailableError when NATS cannot answer
 */
export async function lastSequenceOn(log: Log, stream: string, subject: string): Promise<number> {
  try {
    return (await log[NATS].jsm.streams.getMessage(stream, { last_by_subj: subject }))?.seq ?? 0;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.NoMessageFound) return 0;
    throw new LogUnavailableError("the event log is unavailable", { cause: error });
  }
}

/**
 * The last message on `subject` with its stream sequence, null when there is none: the whole
 * state of an aggregate whose last fact says everything (domain/jobs/decider.ts).
 * @throws LogUnavailableError when NATS cannot answer
 */
export async function lastMessageOn(log: Log, stream: string, subject: string): Promise<{ seq: number; data: Uint8Array } | null> {
  try {
    const message = await log[NATS].jsm.streams.getMessage(stream, { last_by_subj: subject });
    return message ? { seq: message.seq, data: message.data } : null;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.NoMessageFound) return null;
    throw new LogUnavailableError("the event log is unavailable", { cause: error });
  }
}
