/**
 * Runs the writes that share a key one at a time within one API instance: an identity subject, an
 * app's imports. Optimistic concurrency alone makes N simultaneous writers of one subject take N
 * rounds, each costing a wait for the read model, and a burst (an SDK flushing queued property
 * calls) runs out of attempts. Queuing them here leaves optimistic concurrency to settle races
 * between instances. One instance per API (`deps.oneAtATime`): tests run several in one process.
 */
export class OneAtATime {
  /** The last queued write of each key; idle keys have no entry. */
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `work` once every earlier write of `key` has settled; rethrows what `work` throws. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    this.#tails.set(key, tail);
    try {
      return await run;
    } finally {
      // The last writer in the queue removes the entry, so idle keys hold no memory.
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys with a write queued or running. */
  get size(): number {
    return this.#tails.size;
  }
}
