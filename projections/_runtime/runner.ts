import type { Logger } from "pino";
import { sql, type DatabasePool } from "slonik";
import { z } from "zod";
import { applyBatch, batchSizeOf } from "./apply-batch.ts";
import { openReader, toFact } from "./batch-reader.ts";
import type { FactSource } from "./fact-source.ts";
import type { Projection } from "./projection.ts";
import type { ProjectorLocks } from "./projector-locks.ts";

/**
 * Runs one projection for as long as it is started: takes its advisory lock (one active instance),
 * reads with an ordered consumer from checkpoint + 1 and applies batches. Any failure stops the
 * consumer, waits, reloads the checkpoint and starts again: nothing is lost or applied twice.
 */
export class ProjectorRunner {
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
    },
    readonly projection: Projection,
  ) {
    this.#log = deps.logger.child({ component: "projector", projection: projection.name });
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
    let backoff = 100;
    while (!this.#stopped) {
      const lockName = `projector:${this.projection.name}`;
      try {
        if (!(await this.deps.locks.tryAcquire(lockName, () => this.#stopCurrent?.()))) {
          await this.#sleep(1_000);
          continue;
        }
        await this.#follow();
        backoff = 100;
      } catch (error) {
        if (this.#stopped) break;
        this.#log.warn({ err: error }, "projector interrupted; restarting from checkpoint");
        await this.#sleep(backoff);
        backoff = Math.min(backoff * 2, 5_000);
      } finally {
        await this.deps.locks.release(lockName);
      }
    }
  }

  async #follow(): Promise<void> {
    const { generation, lastSeq } = await this.#position();
    let checkpoint = lastSeq;
    const { reader, stop } = await openReader(this.deps.source, this.projection, checkpoint + 1);
    this.#stopCurrent = stop;
    try {
      while (!this.#stopped) {
        const batch = await reader.next(batchSizeOf(this.projection));
        if (batch === null) {
          if (this.#stopped) return;
          if (this.#restartReader) {
            this.#restartReader = false;
            return;
          }
          throw reader.failure ?? new Error("consumer ended");
        }
        const started = performance.now();
        checkpoint = await applyBatch(
          this.deps.pool,
          { projection: this.projection, generation },
          checkpoint,
          batch.map(toFact),
          this.#log,
          { requireActive: true },
        );
        this.deps.applied?.(batch.length, (performance.now() - started) / 1000);
      }
    } finally {
      this.#stopCurrent = undefined;
      stop();
    }
  }

  async #position(): Promise<{ generation: number; lastSeq: number }> {
    return this.deps.pool.one(
      sql.type(z.object({ generation: z.number(), lastSeq: z.number() }))`
        select g.active_generation as "generation", c.last_seq as "lastSeq"
          from projection_generations g
          join projection_checkpoints c on c.projection = g.projection and c.generation = g.active_generation
         where g.projection = ${this.projection.name}`,
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
