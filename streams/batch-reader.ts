import type { JsMsg } from "@nats-io/jetstream";

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
    private readonly highWaterBytes = 4 * 1024 * 1024,
  ) {
    void this.#pump(messages);
  }

  get failure(): unknown {
    return this.#error;
  }

  /** Resolves with the next batch, or null once the iterator has ended (stopped or failed). */
  async next(max: number): Promise<JsMsg[] | null> {
    while (this.#queue.length === 0) {
      if (this.#ended) return null;
      await new Promise<void>((resolve) => (this.#wakeReader = resolve));
    }
    const batch = this.#queue.splice(0, max);
    for (const message of batch) this.#bufferedBytes -= message.data.length;
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
