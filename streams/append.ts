import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { headers as natsHeaders, errors as natsErrors, type MsgHdrs } from "@nats-io/transport-node";
import type { Log } from "./connection.ts";
import { ConcurrencyError, LogUnavailableError } from "./errors.ts";
import { NATS } from "./nats-handles.ts";

export type AppendOptions = {
  /** Stream sequence of the last message on this subject; 0 for a new aggregate. Omit for no check. */
  expectedLastSeq?: number;
  /** Dedup id (`Nats-Msg-Id`): a retried publish with the same id is stored once. */
  msgId: string;
  /** NATS headers stored with the message: what a reader may learn without decoding the payload. */
  headers?: Record<string, string>;
};

/** Where the stream stored an appended message; `duplicate` when an earlier publish with the same msgId already had. */
export type Appended = { readonly seq: number; readonly duplicate: boolean };

const PUBLISH_ATTEMPTS = 3;

/**
 * Appends one message and returns its stream sequence once JetStream has stored it.
 * A publish timeout does not mean the message was lost, so it is retried with the same msgId.
 * @throws ConcurrencyError when the subject moved past `expectedLastSeq`
 * @throws LogUnavailableError when NATS cannot take the write
 */
export async function append(log: Log, subject: string, payload: string | Uint8Array, options: AppendOptions): Promise<Appended> {
  const { js, nc } = log[NATS];
  const expect = options.expectedLastSeq === undefined ? undefined : { lastSubjectSequence: options.expectedLastSeq };
  const headers = options.headers === undefined ? undefined : headersOf(options.headers);
  let lastError: unknown;
  for (let attempt = 1; attempt <= PUBLISH_ATTEMPTS; attempt += 1) {
    try {
      return await js.publish(subject, payload, { msgID: options.msgId, expect, headers, timeout: 4_000 });
    } catch (error) {
      if (error instanceof JetStreamApiError) {
        if (error.code === JetStreamApiCodes.StreamWrongLastSequence) {
          const actual = /wrong last sequence: (\d+)/.exec(error.message)?.[1];
          throw new ConcurrencyError(subject, options.expectedLastSeq ?? 0, actual === undefined ? undefined : Number(actual));
        }
        throw new LogUnavailableError(`the event log refused the write: ${error.message}`, { cause: error });
      }
      lastError = error;
      if (!isRetryable(error) || nc.isClosed()) break;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
  throw new LogUnavailableError("the event log is unavailable", { cause: lastError });
}

function headersOf(values: Record<string, string>): MsgHdrs {
  const headers = natsHeaders();
  for (const [name, value] of Object.entries(values)) headers.set(name, value);
  return headers;
}

/** Publish failures where the message may not have reached the stream and a retry with the same msgId is safe. */
function isRetryable(error: unknown): boolean {
  return (
    error instanceof natsErrors.TimeoutError ||
    error instanceof natsErrors.RequestError ||
    error instanceof natsErrors.NoRespondersError ||
    error instanceof natsErrors.ConnectionError
  );
}
