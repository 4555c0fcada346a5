import type { FactSource } from "./fact-source.ts";
import type { Fact, Projection } from "./projection.ts";

/** Payload one projector transaction takes at most (its decoded rows are several times larger). */
const BATCH_BYTES = 8 * 1024 * 1024;
/** Bytes a reader pulls and buffers ahead of its projector: bounded in bytes, since an ingest fact is ~30 kB and a domain fact ~300 B. */
const READ_AHEAD_BYTES = 4 * 1024 * 1024;

/**
 * Opens a read of the projection's stream from `startSeq`, batched. Reads are sized in bytes, so
 * several readers of large ingest facts in one process keep a few megabytes each in memory, not
 * thousands of facts.
 * @throws what the source throws when the read cannot be opened
 */
export async function openReader(source: FactSource, projection: Projection, startSeq: number) {
  const feed = await source.read(projection.stream, startSeq, READ_AHEAD_BYTES);
  return { reader: new BatchReader(feed.messages, READ_AHEAD_BYTES), stop: feed.stop };
}

/**
 * A plain copy of a message the source delivered: a log client's message objects may compute
 * their fields on every access, and a projection reads them many times.
 */
export function toFact(message: Fact): Fact {
  return { seq: message.seq, subject: message.subject, data: message.data };
}

/**
 * Turns a consumer's message iterator into batches: `next()` waits for at least one message and
 * returns everything buffered (up to `max`). The pump pauses once `highWaterBytes` of payload are
 * buffered, so a replay from sequence 1 never holds a whole stream in memory.
 */
export class BatchReader {
  #queue: Fact[] = [];
  #bufferedBytes = 0;
  #wakeReader: (() => void) | undefined;
  #resumePump: (() => void) | undefined;
  #ended = false;
  #error: unknown;

  constructor(
    messages: AsyncIterable<Fact>,
    private readonly highWaterBytes: number,
  ) {
    void this.#pump(messages);
  }

  get failure(): unknown {
    return this.#error;
  }

  /**
   * Resolves with the next batch: at most `max` messages and, past the first, at most `maxBytes`
   * of payload, so a batch of large facts (1,000-event imports) stays as small in memory as a batch
   * of SDK-sized ones. Null once the iterator has ended (stopped or failed).
   */
  async next(max: number, maxBytes = BATCH_BYTES): Promise<Fact[] | null> {
    while (this.#queue.length === 0) {
      if (this.#ended) return null;
      await new Promise<void>((resolve) => (this.#wakeReader = resolve));
    }
    let count = 0;
    let bytes = 0;
    while (count < Math.min(max, this.#queue.length) && (count === 0 || bytes + this.#queue[count]!.data.length <= maxBytes)) {
      bytes += this.#queue[count]!.data.length;
      count += 1;
    }
    const batch = this.#queue.splice(0, count);
    this.#bufferedBytes -= bytes;
    const resume = this.#resumePump;
    this.#resumePump = undefined;
    resume?.();
    return batch;
  }

  async #pump(messages: AsyncIterable<Fact>): Promise<void> {
    try {
      for await (const message of messages) {
        this.#queue.push(message);
        this.#bufferedBytes += message.data.length;
        this.#wake();
        if (this.#bufferedBytes >= this.highWaterBytes) await new Promise<void>((resolve) => (this.#resumePump = resolve));
      }
    } catch (error) {
      this.#error = error;
    } finally {
      this.#ended = true;
      this.#wake();
    }
  }

  #wake(): void {
    const wake = this.#wakeReader;
    this.#wakeReader = undefined;
    wake?.();
  }
}
