import pg from "pg";

/**
 * One connection per process holds the advisory locks of every projector the process runs (one
 * active instance per read model partition), instead of one connection per projector: six read
 * models would otherwise cost six idle connections per process. When the connection dies every
 * lock is gone with it, so every holder is told to stop and take its lock again.
 *
 * The connection also stands for this projector instance in `projector_instances`, with the read
 * models it runs: other instances count it while its backend lives (projector-share.ts).
 */
export class ProjectorLocks {
  #client: Promise<pg.Client> | undefined;
  #held = new Map<string, () => void>();
  // One statement at a time on the shared connection: pg deprecates queueing concurrent queries on
  // one client (pg 9 drops it), and several projectors ask for their locks at once.
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly databaseUrl: string,
    /** The read models this instance runs; none for a process that only maintains tables. */
    private readonly projections: readonly string[] = [],
  ) {}

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
      const connecting = client.connect().then(async () => {
        if (this.projections.length > 0) await register(client, this.projections);
        return client;
      });
      connecting.catch(() => {
        if (this.#client === connecting) this.#client = undefined;
      });
      this.#client = connecting;
    }
    return this.#client;
  }
}

/** Enters this connection's backend as a projector instance, and forgets instances whose backend has gone. */
async function register(client: pg.Client, projections: readonly string[]): Promise<void> {
  await client.query(
    `with gone as (
       delete from projector_instances i
        where not exists (select from pg_stat_activity a where a.pid = i.pid and a.backend_start = i.backend_start)
     )
     insert into projector_instances (pid, backend_start, projections)
     select pid, backend_start, $1 from pg_stat_activity where pid = pg_backend_pid()
     on conflict do nothing`,
    [projections],
  );
}
