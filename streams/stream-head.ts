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
 * The sequence of the last message on `stream`, 0 when it is empty. A purge (streams/purge.ts)
 * may have removed the messages at the end while the stream's `last_seq` stays where it was: the
 * readers that wait to reach the head (replay, read-your-writes) would then wait for a message
 * that never comes. When the stream has such gaps, the last stored message is looked up (a get of
 * the last message on any of the stream's subjects, which 2.9 answers).
 * @throws the NATS client's error (TimeoutError, ConnectionError, JetStreamApiError) when the log cannot answer
 */
export async function streamHead(log: Log, stream: StreamKind): Promise<number> {
  const { jsm } = log[NATS];
  const { state } = await jsm.streams.info(log.names.stream(stream));
  if (state.messages === 0) return 0;
  if (state.messages === state.last_seq - state.first_seq + 1) return state.last_seq;
  const last = await jsm.streams.getMessage(log.names.stream(stream), { last_by_subj: `${log.names.subjectRoot(stream)}.>` });
  return last?.seq ?? 0;
}
