import type { FactSource } from "../../projections/_runtime/fact-source.ts";
import type { Log } from "../../streams/connection.ts";
import { readFrom } from "../../streams/read.ts";
import { onReconnect } from "../../streams/reconnects.ts";
import { streamHead } from "../../streams/stream-head.ts";

/** The projector runtime's view of the event log, served by streams/ over `log`. Throws nothing. */
export function factSourceOf(log: Log): FactSource {
  return {
    read: (stream, startSeq, readAheadBytes) => readFrom(log, stream, startSeq, readAheadBytes),
    head: (stream) => streamHead(log, stream),
    onReconnect: (listener) => onReconnect(log, listener),
  };
}
