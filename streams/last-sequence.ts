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
