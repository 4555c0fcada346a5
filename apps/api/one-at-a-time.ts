/**
 * Runs the writes that share `key` one at a time within one API instance (`owner`, its deps): an
 * identity subject, an app's imports. Optimistic concurrency alone makes N simultaneous writers of
 * one subject take N rounds, each costing a wait for the read model, and a burst (an SDK flushing
 * queued property calls) runs out of attempts. Queuing them here leaves optimistic concurrency to
 * settle races between instances.
 */
const queues = new WeakMap<object, Map<string, Promise<unknown>>>();

export async function oneAtATime<T>(owner: object, key: string, work: () => Promise<T>): Promise<T> {
  let tails = queues.get(owner);
  if (!tails) {
    tails = new Map();
    queues.set(owner, tails);
  }
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(work, work);
  const tail = run.catch(() => undefined);
  tails.set(key, tail);
  try {
    return await run;
  } finally {
    // The last writer in the queue removes the entry, so idle keys hold no memory.
    if (tails.get(key) === tail) tails.delete(key);
  }
}
