import pg from "pg";
import type { Logger } from "pino";

type Waiter = { projections: string[]; seq: number; resolve: (reached: boolean) => void; timer: NodeJS.Timeout };

const POLL_MS = 200;
/** With a replica, a notification says only that the primary moved: its checkpoints are asked again at this pace while someone waits. */
const REPLICA_POLL_MS = 25;

/**
 * Knows how far each projection's active generation has got: for a read model split into
 * partitions, the lowest of their checkpoints. Projectors NOTIFY on every commit (Postgres delivers
 * it only after the commit, so a notification means the rows are visible); a poll covers lost
 * notifications and a reconnecting listener.
 *
 * With `replicaUrl` (the API reads from a streaming replica), positions are the replica's own
 * copy of the checkpoints: a checkpoint and its rows commit together, so once the replica shows
 * the checkpoint it shows the rows, and a write waited for is visible to the next read there. The
 * primary's notifications (a standby cannot LISTEN) only prompt asking the replica again.
 */
export class ProgressWatcher {
  #positions = new Map<string, number>();
  /** Per read model: its active generation and the last checkpoint heard of each of its partitions. */
  #active = new Map<string, { generation: number; partitions: number[] }>();
  #waiters = new Set<Waiter>();
  #client: pg.Client | undefined;
  #poller: NodeJS.Timeout | undefined;
  #stopped = false;

  #replicaPolling = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
    private readonly replicaUrl?: string,
  ) {}

  async start(): Promise<void> {
    this.#stopped = false;
    await this.#listen().catch((error) => {
      this.logger.warn({ err: error }, "progress listener not connected yet");
      this.#relisten();
    });
    await this.#poll().catch(() => undefined);
    this.#poller = setInterval(
      () => {
        if (this.#waiters.size > 0 || !this.#client) void this.#poll().catch(() => undefined);
      },
      this.replicaUrl ? REPLICA_POLL_MS : POLL_MS,
    );
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#poller);
    clearTimeout(this.#relistenTimer);
    for (const waiter of this.#waiters) this.#settle(waiter, false);
    await this.#client?.end().catch(() => undefined);
    this.#client = undefined;
    await this.#replica?.end().catch(() => undefined);
    this.#replica = undefined;
  }

  position(projection: string): number {
    return this.#positions.get(projection) ?? 0;
  }

  /** Resolves true once every projection has reached `seq`, false after `timeoutMs`. */
  waitFor(projections: string[], seq: number, timeoutMs: number): Promise<boolean> {
    if (this.#reached(projections, seq)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        projections,
        seq,
        resolve,
        timer: setTimeout(() => this.#settle(waiter, false), timeoutMs),
      };
      this.#waiters.add(waiter);
    });
  }

  #reached(projections: string[], seq: number): boolean {
    return projections.every((projection) => this.position(projection) >= seq);
  }

  #settle(waiter: Waiter, reached: boolean): void {
    clearTimeout(waiter.timer);
    this.#waiters.delete(waiter);
    waiter.resolve(reached);
  }

  #advance(projection: string, partition: number, seq: number): void {
    const active = this.#active.get(projection);
    if (!active || partition >= active.partitions.length) return;
    active.partitions[partition] = Math.max(active.partitions[partition]!, seq);
    const lowest = Math.min(...active.partitions);
    if (lowest <= this.position(projection)) return;
    this.#positions.set(projection, lowest);
    for (const waiter of this.#waiters) if (this.#reached(waiter.projections, waiter.seq)) this.#settle(waiter, true);
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on("error", () => {
      if (this.#client === client) this.#client = undefined;
      this.#relisten();
    });
    client.on("notification", (note) => {
      if (this.replicaUrl) return void this.#poll().catch(() => undefined);
      const [projection, generation, partition, seq] = (note.payload ?? "").split(":");
      if (!projection || !generation || !partition || !seq) return;
      const active = this.#active.get(projection);
      if (active?.generation === Number(generation) && Number(partition) < active.partitions.length) this.#advance(projection, Number(partition), Number(seq));
      else void this.#poll().catch(() => undefined);
    });
    await client.connect();
    await client.query("listen projector_progress");
    this.#client = client;
  }

  #relistenTimer: NodeJS.Timeout | undefined;

  /**
   * Reconnects the listener every second until it is back. (A single retry used to give up when
   * Postgres was down longer than that, leaving only the poll, which then opened a connection five
   * times a second for the rest of the process's life.)
   */
  #relisten(): void {
    if (this.#stopped || this.#relistenTimer) return;
    this.#relistenTimer = setTimeout(() => {
      this.#relistenTimer = undefined;
      if (this.#stopped || this.#client) return;
      void this.#listen().catch(() => this.#relisten());
    }, 1_000);
  }

  /** Reads the checkpoints of the active generations (a replay's shadow generation does not count). */
  async #poll(): Promise<void> {
    if (this.replicaUrl) {
      // One replica poll at a time: notifications come with every projector commit.
      if (this.#replicaPolling) return;
      this.#replicaPolling = true;
      try {
        await this.#readPositions(await this.#replicaClient());
      } catch (error) {
        this.#replica?.end().catch(() => undefined);
        this.#replica = undefined;
        throw error;
      } finally {
        this.#replicaPolling = false;
      }
      return;
    }
    const listener = this.#client;
    const client = listener ?? new pg.Client({ connectionString: this.databaseUrl });
    if (!listener) {
      client.on("error", () => undefined);
      await client.connect();
    }
    try {
      await this.#readPositions(client);
    } finally {
      if (!listener) await client.end().catch(() => undefined);
    }
  }

  #replica: pg.Client | undefined;

  /** The connection to the replica the polls share, opened again after an error. */
  async #replicaClient(): Promise<pg.Client> {
    if (this.#replica) return this.#replica;
    const client = new pg.Client({ connectionString: this.replicaUrl });
    client.on("error", () => {
      if (this.#replica === client) this.#replica = undefined;
    });
    await client.connect();
    if (this.#stopped) {
      await client.end();
      throw new Error("stopped");
    }
    this.#replica = client;
    return client;
  }

  async #readPositions(client: pg.Client): Promise<void> {
    const { rows } = await client.query<{ projection: string; generation: number; partition: number; partitions: number; last_seq: string }>(
      `select c.projection, c.generation, c.partition, c.partitions, c.last_seq from projection_checkpoints c
         join projection_generations g on g.projection = c.projection and g.active_generation = c.generation`,
    );
    for (const row of rows) {
      const active = this.#active.get(row.projection);
      if (active?.generation !== row.generation || active.partitions.length !== row.partitions) {
        // A new generation, or partitions arranged anew: positions start over from what is stored.
        this.#positions.delete(row.projection);
        this.#active.set(row.projection, { generation: row.generation, partitions: new Array<number>(row.partitions).fill(0) });
      }
    }
    for (const row of rows) this.#advance(row.projection, row.partition, Number(row.last_seq));
  }
}
