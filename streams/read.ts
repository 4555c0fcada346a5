import { DeliverPolicy } from "@nats-io/jetstream";
import type { StreamKind } from "../domain/shared/stream-kind.ts";
import type { Log } from "./connection.ts";
import { NATS } from "./nats-handles.ts";

/** One stored message as a reader sees it: its stream sequence, subject and payload. */
export type StoredMessage = { readonly seq: number; readonly subject: string; readonly data: Uint8Array };

/** Room for a message's headers and protocol framing on top of its payload. */
const MESSAGE_FRAMING_BYTES = 64 * 1024;

/**
 * Opens an ordered consumer on `stream` from `startSeq` and returns its messages, in stream order,
 * and a function that ends the read. DOMAIN facts are small and pulled by count; INGEST facts are
 * large and pulled by bytes, at least `readAheadBytes`, so several readers in one process keep a
 * few megabytes each in memory, not thousands of facts. JetStream never splits a message: a pull
 * smaller than the next message gets none ("Message Size Exceeds MaxBytes"), so a pull also holds
 * the largest message the server accepts, on a server configured above the default 1 MB too.
 * A failure of the consumer ends the iteration with its error.
 * @throws the NATS client's error when the consumer cannot be created
 */
export async function readFrom(
  log: Log,
  stream: StreamKind,
  startSeq: number,
  readAheadBytes: number,
): Promise<{ messages: AsyncIterable<StoredMessage>; stop: () => void }> {
  const { js, nc } = log[NATS];
  const consumer = await js.consumers.get(log.names.stream(stream), {
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: Math.max(1, startSeq),
  });
  const pullBytes = Math.max(readAheadBytes, (nc.info?.max_payload ?? 0) + MESSAGE_FRAMING_BYTES);
  const messages = await consumer.consume(stream === "INGEST" ? { max_bytes: pullBytes } : { max_messages: 1_000 });
  return { messages, stop: () => messages.stop() };
}
