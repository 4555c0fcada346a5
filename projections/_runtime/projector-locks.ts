import pg from "pg";

/**
 * One connection per process holds the advisory locks of every projector the process runs (one
 * active instance per read model), instead of one connection per projector: six read models would
 * otherwise cost six idle connections per process. When the connection dies every lock is gone
 * with it, so every holder is told to stop and take its lock again.
 */
export class ProjectorLocks {
  #client: Promise<pg.Client> | undefined;
  #held = new Map<string, () => void>();
  // One statement at a time on the shared connection: pg deprecates queueing concurrent queries on
  // one client (pg 9 drops it), and several projectors ask for their locks at once.
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly databaseUrl: string) {}

  /** Tries to take `name`'s lock; `onLost` runs if the connection holding it dies. */
  async tryAcquire(name: string, onLost: () => void): Promise<boolean> {
    return this.#serially(async () => {
      const client = await this.#connection();
      const { rows } = await client.query<{ locked: boolean }>("select pg_try_advisory_lock(hashtext($1)) as locked", [name]);
      if (rows[0]!.locked) this.#held.set(name, onLost);
      return rows[0]!.locked;
    });
  }

  async release(name: string): Promise<void> {
    if (!this.#held.delete(name) || !this.#client) return;
    const connection = this.#client;
    await this.#serially(async () => {
      const client = await connection.catch(() => undefined);
      await client?.query("select pg_advisory_unlock(hashtext($1))", [name]).catch(() => undefined);
    });
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#held.clear();
    await (await client?.catch(() => undefined))?.end().catch(() => undefined);
  }

  #serially<T>(statement: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(statement);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  #connection(): Promise<pg.Client> {
    if (!this.#client) {
      const client = new pg.Client({ connectionString: this.databaseUrl });
      const lost = () => {
        if (this.#client !== connecting) return;
        this.#client = undefined;
        const holders = [...this.#held.values()];
        this.#held.clear();
        for (const onLost of holders) onLost();
        void client.end().catch(() => undefined);
      };
      client.on("error", lost);
      client.on("end", lost);
      const connecting = client.connect().then(() => client);
      connecting.catch(() => {
        if (this.#client === connecting) this.#client = undefined;
      });
      this.#client = connecting;
    }
    return this.#client;
  }
}
