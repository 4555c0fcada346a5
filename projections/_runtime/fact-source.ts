import type { StreamKind } from "../../domain/shared/stream-kind.ts";
import type { Fact } from "./projection.ts";

/**
 * What the projector runtime needs of the event log, and all it knows of it. streams/ implements
 * it over NATS and apps/ wires the two together, so projections/ and streams/ never import each
 * other.
 */
export type FactSource = {
  /**
   * Starts an ordered read of `stream` from `startSeq`: its messages in stream order, and a
   * function that ends the read. The source may pull up to `readAheadBytes` ahead of the reader.
   * A failure of the read ends the iteration with its error.
   */
  read: (stream: StreamKind, startSeq: number, readAheadBytes: number) => Promise<FactFeed>;
  /** The sequence of the last message on `stream`, 0 when it is empty. */
  head: (stream: StreamKind) => Promise<number>;
  /** Calls `listener` every time the connection to the log comes back after a loss; returns a function that stops listening. */
  onReconnect: (listener: () => void) => () => void;
};

export type FactFeed = { messages: AsyncIterable<Fact>; stop: () => void };
