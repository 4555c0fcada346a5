import type { StreamKind } from "../domain/shared/stream-kind.ts";
import type { Log } from "./connection.ts";
import { NATS } from "./nats-handles.ts";

export type StreamState = { name: string; messages: number; bytes: number; lastSeq: number };

/**
 * How much `stream` holds and the sequence of its last message.
 * @throws the NATS client's error (TimeoutError, ConnectionError, JetStreamApiError) when the log cannot answer
 */
export async function streamState(log: Log, stream: StreamKind): Promise<StreamState> {
  const info = await log[NATS].jsm.streams.info(log.names.stream(stream));
  return { name: info.config.name, messages: info.state.messages, bytes: info.state.bytes, lastSeq: info.state.last_seq };
}

/**
 * The sequence of the last message on `stream`, 0 when it is empty.
 * @throws the NATS client's error (TimeoutError, ConnectionError, JetStreamApiError) when the log cannot answer
 */
export async function streamHead(log: Log, stream: StreamKind): Promise<number> {
  return (await log[NATS].jsm.streams.info(log.names.stream(stream))).state.last_seq;
}
