import type { JsMsg } from "@nats-io/jetstream";

/** Payload one projector transaction takes at most (its decoded rows are several times larger). */
const BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Turns a consumer's message iterator into batches: `next()` waits for at least one message and
 * returns everything buffered (up to `max`). The pump pauses once `highWaterBytes` of payload are
 * buffered, so a replay from sequence 1 never holds a whole stream in memory.
 */
export class BatchReader {
  #queue: JsMsg[] = [];
  #bufferedBytes = 0;
  #wakeReader: (() => void) | undefined;
  #resumePump: (() => void) | undefined;
  #ended = false;
  #error: unknown;

  constructor(
    messages: AsyncIterable<JsMsg>,
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
  async next(max: number, maxBytes = BATCH_BYTES): Promise<JsMsg[] | null> {
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

  async #pump(messages: AsyncIterable<JsMsg>): Promise<void> {
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
