/**
 * Hands out keys so none goes over `perKeyPerSecond` requests: the API's token bucket refills 10
 * tokens a second per key (and holds 100), and a load generator that outran it would time 429s
 * instead of the route. The key free soonest goes next, so concurrent callers share the keys evenly.
 */
export class KeyPacer<T> {
  #next: number[];

  constructor(
    private readonly keys: readonly T[],
    private readonly perKeyPerSecond: number,
  ) {
    if (keys.length === 0) throw new Error("KeyPacer needs at least one key");
    this.#next = keys.map(() => 0);
  }

  async acquire(): Promise<T> {
    let best = 0;
    for (let index = 1; index < this.#next.length; index += 1) if (this.#next[index]! < this.#next[best]!) best = index;
    const now = performance.now();
    const at = Math.max(now, this.#next[best]!);
    this.#next[best] = at + 1000 / this.perKeyPerSecond;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
    return this.keys[best]!;
  }
}
