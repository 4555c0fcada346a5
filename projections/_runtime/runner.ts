import type { Logger } from "pino";
import { sql, type DatabasePool } from "slonik";
import { z } from "zod";
import { applyBatch, batchSizeOf } from "./apply-batch.ts";
import { openReader, toFact } from "./batch-reader.ts";
import type { FactSource } from "./fact-source.ts";
import { partitionLockName } from "./fact-partitions.ts";
import type { Projection } from "./projection.ts";
import type { ProjectorLocks } from "./projector-locks.ts";
import type { Holder, ProjectorShare } from "./projector-share.ts";

/** How long a partition handed to another instance is left for it to take. */
const HANDED_BACK_MS = 5_000;
/** How long a reader may deliver nothing while the stream holds facts past the checkpoint. */
const STALL_MS = 5_000;

/**
 * Runs one partition of a projection (the whole of an unsplit one) for as long as it is started:
 * takes its advisory lock (one active instance), reads with an ordered consumer from checkpoint + 1
 * and applies batches. Any failure stops the consumer, waits, reloads the checkpoint and starts
 * again: nothing is lost or applied twice. With a share, it takes the lock only while this
 * instance holds fewer partitions than its share, and hands it back when asked.
 */
export class ProjectorRunner implements Holder {
  #stopped = true;
  #stopCurrent: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  #wakeSleep: (() => void) | undefined;
  readonly #log: Logger;

  constructor(
    private readonly deps: {
      source: FactSource;
      pool: DatabasePool;
      locks: ProjectorLocks;
      logger: Logger;
      /** Told of every batch applied: how many facts, in how many seconds (commit included). */
      applied?: (facts: number, seconds: number) => void;
      share?: ProjectorShare;
    },
    readonly projection: Projection,
    readonly partition = 0,
  ) {
    this.#log = deps.logger.child({ component: "projector", projection: projection.name, ...(partition > 0 ? { partition } : {}) });
  }

  #handingBack = false;

  /** Finishes the batch in flight, releases the partition and leaves it alone for a while. */
  yieldPartition(): void {
    if (this.#stopped || this.#handingBack) return;
    this.#handingBack = true;
    this.#stopCurrent?.();
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#watchReconnects();
    this.#loop = this.#run();
  }

  /** Stops after the batch in flight has committed or rolled back. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopWatchingReconnects?.();
    this.#stopWatchingReconnects = undefined;
    this.#stopCurrent?.();
    this.#wakeSleep?.();
    await this.#loop;
  }

  #stopWatchingReconnects: (() => void) | undefined;

  /**
   * After NATS comes back from a restart the ordered consumer recreates itself, but with the pull
   * it had outstanding still counted as pending: it asks for no more messages and stalls until two
   * idle heartbeats are missed (30 to 60 s), while every write waits for read-your-writes and
   * answers 503. On every reconnect the runner drops the reader and opens a fresh one from the
   * checkpoint instead; the checkpoint compare-and-set makes the restart safe.
   */
  #watchReconnects(): void {
    this.#stopWatchingReconnects = this.deps.source.onReconnect(() => {
      if (this.#stopped) return;
      this.#log.info("nats reconnected; reopening the reader from the checkpoint");
      this.#restartReader = true;
      this.#stopCurrent?.();
    });
  }

  #restartReader = false;

  async #run(): Promise<void> {
    const name = this.projection.name;
    const lockName = partitionLockName(name, this.partition);
    const share = this.deps.share;
    let backoff = 100;
    while (!this.#stopped) {
      let held = false;
      let idle = false;
      try {
        if (share && !share.mayTake(name)) {
          await this.#sleep(1_000);
          continue;
        }
        if (!(await this.deps.locks.tryAcquire(lockName, () => this.#stopCurrent?.()))) {
          await this.#sleep(1_000);
          continue;
        }
        held = true;
        share?.took(name, this);
        idle = (await this.#follow()) === "no such partition";
        backoff = 100;
      } catch (error) {
        if (this.#stopped) break;
        this.#log.warn({ err: error }, "projector interrupted; restarting from checkpoint");
        await this.#sleep(backoff);
        backoff = Math.min(backoff * 2, 5_000);
      } finally {
        await this.deps.locks.release(lockName);
        if (held) share?.released(name, this);
      }
      // A partition handed to another instance, or one the read model is no longer split into
      // (its partitions were arranged by an instance with another INGEST_PARTITIONS): wait.
      if (this.#handingBack || idle) {
        if (this.#handingBack) this.#log.info("partition handed to another instance");
        await this.#sleep(HANDED_BACK_MS);
        this.#handingBack = false;
      }
    }
  }

  async #follow(): Promise<"stopped" | "no such partition"> {
    const position = await this.#position();
    if (!position) return "no such partition";
    const { generation, partitions, lastSeq } = position;
    let checkpoint = lastSeq;
    const { reader, stop } = await openReader(this.deps.source, this.projection, checkpoint + 1);
    this.#stopCurrent = stop;
    const watchdog = this.#watchForStall(() => checkpoint, stop);
    try {
      while (!this.#stopped && !this.#handingBack) {
        watchdog.waiting(true);
        const batch = await reader.next(batchSizeOf(this.projection));
        watchdog.waiting(false);
        if (batch === null) {
          if (this.#stopped || this.#handingBack) return "stopped";
          if (this.#restartReader) {
            this.#restartReader = false;
            return "stopped";
          }
          throw reader.failure ?? new Error("consumer ended");
        }
        const started = performance.now();
        checkpoint = await applyBatch(
          this.deps.pool,
          { projection: this.projection, generation, partition: this.partition, partitions },
          checkpoint,
          batch.map(toFact),
          this.#log,
          { requireActive: true },
        );
        this.deps.applied?.(batch.length, (performance.now() - started) / 1000);
      }
      return "stopped";
    } finally {
      watchdog.end();
      this.#stopCurrent = undefined;
      stop();
    }
  }

  /**
   * Restarts the reader when it has delivered nothing for STALL_MS while the stream's head is past
   * the checkpoint. On a cluster, an ordered consumer lives on the stream's leader; when that node
   * dies the consumer is gone, and the client notices only after two missed idle heartbeats (up to
   * a minute) while the read model falls behind. Time spent applying a batch does not count.
   */
  #watchForStall(checkpoint: () => number, stop: () => void) {
    let idleSince = performance.now();
    let idle = false;
    let checking = false;
    const timer = setInterval(() => {
      if (!idle || checking || performance.now() - idleSince < STALL_MS) return;
      checking = true;
      void this.deps.source
        .head(this.projection.stream)
        .then((head) => {
          if (!idle || head <= checkpoint()) return;
          this.#log.warn({ checkpoint: checkpoint(), head }, "reader delivered nothing while the stream moved on; reopening it from the checkpoint");
          this.#restartReader = true;
          stop();
        })
        .catch(() => undefined) // the log is away: the reconnect handler reopens the reader
        .finally(() => {
          checking = false;
          idleSince = performance.now();
        });
    }, STALL_MS / 5);
    return {
      waiting: (now: boolean) => {
        idle = now;
        if (now) idleSince = performance.now();
      },
      end: () => clearInterval(timer),
    };
  }

  /** The active generation, how many partitions it has, and this partition's checkpoint; null when it has no such partition. */
  async #position(): Promise<{ generation: number; partitions: number; lastSeq: number } | null> {
    return this.deps.pool.maybeOne(
      sql.type(z.object({ generation: z.number(), partitions: z.number(), lastSeq: z.number() }))`
        select g.active_generation as "generation", c.partitions, c.last_seq as "lastSeq"
          from projection_generations g
          join projection_checkpoints c on c.projection = g.projection and c.generation = g.active_generation
         where g.projection = ${this.projection.name} and c.partition = ${this.partition}`,
    );
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wakeSleep = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
