import { setImmediate as nextTurn } from "node:timers/promises";

/** Fact payload decoded between two turns: about 2-4 ms of JSON.parse. */
const DEFAULT_BYTES_PER_TURN = 256 * 1024;

/**
 * Gives the event loop a turn after every `bytesPerTurn` of fact payload decoded. The projectors
 * of a process share one event loop, and a batch of a derived read model is several MB of JSON:
 * decoded in one go, it held every other projector's replies for tens of ms. Between two
 * transactions of the events projector (commit, begin, checks: several round trips with nothing
 * for Postgres to do) that cost 65-140 ms per batch in the bench, 10-25 % of its time; with these
 * turns, and the checks folded into fewer round trips (apply-batch.ts), about 30 ms.
 */
export class LoopTurns {
  #sinceTurn = 0;

  constructor(private readonly bytesPerTurn = DEFAULT_BYTES_PER_TURN) {}

  async after(bytes: number): Promise<void> {
    this.#sinceTurn += bytes;
    if (this.#sinceTurn < this.bytesPerTurn) return;
    this.#sinceTurn = 0;
    await nextTurn();
  }
}
