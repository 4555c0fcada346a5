import { DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import type { QueuedIterator, Status } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { sql, type DatabasePool, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import { generationSchema, type Fact, type Projection } from "../projections/_runtime/projection.ts";
import { BatchReader } from "./batch-reader.ts";
import type { Log } from "./connection.ts";
import type { ProjectorLocks } from "./projector-locks.ts";

const DEFAULT_MAX_BATCH = 2_000;

/** Facts per transaction for `projection`. */
export const batchSizeOf = (projection: Projection) => projection.maxBatch ?? DEFAULT_MAX_BATCH;

/** The checkpoint in Postgres is not where this runner thought: restart from the stored one. */
class PositionMoved extends Error {
  override name = "PositionMoved";
}

/** Errors that say the database or the log is unavailable, not that the fact is bad. */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
  if (typeof code === "string" && /^(08|53|57P|40)/.test(code)) return true;
  const name = (error as Error).name ?? "";
  return /Connection|BackendTerminated|Timeout|Unavailable|PositionMoved/.test(name) || /ECONNREFUSED|ECONNRESET|terminat/i.test(String((error as Error).message));
}

export type ApplyTarget = { projection: Projection; generation: number };

/**
 * Applies `facts` in one transaction together with the checkpoint. The checkpoint row is locked and
 * compared with `expectedSeq` (compare-and-set), so a second runner, a replay swap or a redelivery
 * can never apply a fact twice. A fact that cannot be applied is parked with its error.
 * Returns the new checkpoint.
 */
export async function applyBatch(
  pool: DatabasePool | DatabaseTransactionConnection,
  target: ApplyTarget,
  expectedSeq: number,
  facts: Fact[],
  log: Logger,
  options: { requireActive: boolean },
): Promise<number> {
  try {
    return await pool.transaction((tx) => applyInTransaction(tx, target, expectedSeq, facts, options, false, log));
  } catch (error) {
    if (isTransient(error) || error instanceof PositionMoved) throw error;
    log.warn({ err: error, projection: target.projection.name, from: facts[0]?.seq }, "batch failed; applying fact by fact");
    return pool.transaction((tx) => applyInTransaction(tx, target, expectedSeq, facts, options, true, log));
  }
}

async function applyInTransaction(
  tx: DatabaseTransactionConnection,
  { projection, generation }: ApplyTarget,
  expectedSeq: number,
  facts: Fact[],
  options: { requireActive: boolean },
  oneByOne: boolean,
  log: Logger,
): Promise<number> {
  // One round trip for both checks and the generation's schema as the transaction's search path.
  // The generation row is share-locked even for a replay, which needs no active generation: a swap
  // waits for the batch, and the replay's own swap transaction holds that row already.
  const position = await tx.one(
    sql.type(z.object({ last_seq: z.number(), active_generation: z.number() }))`
      select c.last_seq, g.active_generation,
             set_config('search_path', ${`${generationSchema(projection.name, generation)}, public`}, true) as search_path
        from projection_checkpoints c join projection_generations g on g.projection = c.projection
       where c.projection = ${projection.name} and c.generation = ${generation}
         for update of c for share of g`,
  );
  if (options.requireActive && position.active_generation !== generation) {
    throw new PositionMoved(`generation ${generation} of ${projection.name} is no longer active`);
  }
  const stored = position.last_seq;
  if (stored !== expectedSeq) throw new PositionMoved(`checkpoint of ${projection.name} is ${stored}, expected ${expectedSeq}`);
  const fresh = facts.filter((fact) => fact.seq > stored);
  if (fresh.length === 0) return stored;
  if (!oneByOne) {
    await projection.apply(tx, fresh);
  } else {
    for (const fact of fresh) {
      try {
        await tx.transaction((savepoint) => projection.apply(savepoint, [fact]));
      } catch (error) {
        if (isTransient(error)) throw error;
        log.error({ err: error, projection: projection.name, seq: fact.seq, subject: fact.subject }, "parked a fact that cannot be applied");
        await tx.query(sql.unsafe`
          insert into public.parked_facts (projection, generation, seq, subject, error, data)
          values (${projection.name}, ${generation}, ${fact.seq}, ${fact.subject}, ${String((error as Error).message)}, ${sql.binary(Buffer.from(fact.data))})
          on conflict do nothing`);
        await recordParked(tx, projection, fact, log);
      }
    }
  }
  const lastSeq = fresh[fresh.length - 1]!.seq;
  await tx.query(sql.unsafe`
    with moved as (
      update projection_checkpoints set last_seq = ${lastSeq}, updated_at = now()
       where projection = ${projection.name} and generation = ${generation}
    )
    select pg_notify('projector_progress', ${`${projection.name}:${generation}:${lastSeq}`})`);
  return lastSeq;
}

/**
 * Lets the read model record a fact it parked, in a savepoint of its own: should that fail too,
 * the batch still commits with the fact parked rather than being retried forever.
 */
async function recordParked(tx: DatabaseTransactionConnection, projection: Projection, fact: Fact, log: Logger): Promise<void> {
  const parked = projection.parked;
  if (!parked) return;
  try {
    await tx.transaction((savepoint) => parked(savepoint, fact));
  } catch (error) {
    if (isTransient(error)) throw error;
    log.error({ err: error, projection: projection.name, seq: fact.seq }, "could not record a parked fact in its read model");
  }
}

export function toFact(message: JsMsg): Fact {
  return { seq: message.seq, subject: message.subject, data: message.data };
}

/** Bytes a reader pulls and buffers ahead of its projector: bounded in bytes, since an ingest fact is ~30 kB and a domain fact ~300 B. */
const READ_AHEAD_BYTES = 4 * 1024 * 1024;
/** Room for a message's headers and protocol framing on top of its payload. */
const MESSAGE_FRAMING_BYTES = 64 * 1024;

/**
 * The bytes one pull asks for. JetStream never splits a message: a pull smaller than the next
 * message gets none (the server answers "Message Size Exceeds MaxBytes"), so a pull must hold the
 * largest message the server accepts, also on a server configured above the default 1 MB.
 */
const pullBytes = (log: Log) => Math.max(READ_AHEAD_BYTES, (log.nc.info?.max_payload ?? 0) + MESSAGE_FRAMING_BYTES);

/**
 * Opens an ordered consumer on the projection's stream from `startSeq`. Pulls are sized in bytes,
 * so several readers of large ingest facts in one process keep a few megabytes each in memory,
 * not thousands of facts.
 */
export async function openReader(log: Log, projection: Projection, startSeq: number) {
  const consumer = await log.js.consumers.get(log.names.stream(projection.stream), {
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: Math.max(1, startSeq),
  });
  // Small domain facts are pulled by count; large ingest facts by bytes.
  const messages = await consumer.consume(projection.stream === "INGEST" ? { max_bytes: pullBytes(log) } : { max_messages: 1_000 });
  return { reader: new BatchReader(messages, READ_AHEAD_BYTES), stop: () => messages.stop() };
}

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
    private readonly deps: { log: Log; pool: DatabasePool; locks: ProjectorLocks; logger: Logger },
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
    this.#statusWatch?.stop();
    this.#statusWatch = undefined;
    this.#stopCurrent?.();
    this.#wakeSleep?.();
    await this.#loop;
  }

  #statusWatch: QueuedIterator<Status> | undefined;

  /**
   * After NATS comes back from a restart the ordered consumer recreates itself, but with the pull
   * it had outstanding still counted as pending: it asks for no more messages and stalls until two
   * idle heartbeats are missed (30 to 60 s), while every write waits for read-your-writes and
   * answers 503. On every reconnect the runner drops the reader and opens a fresh one from the
   * checkpoint instead; the checkpoint compare-and-set makes the restart safe.
   */
  #watchReconnects(): void {
    const status = this.deps.log.nc.status() as QueuedIterator<Status>;
    this.#statusWatch = status;
    void (async () => {
      for await (const event of status) {
        if (event.type !== "reconnect" || this.#stopped) continue;
        this.#log.info("nats reconnected; reopening the reader from the checkpoint");
        this.#restartReader = true;
        this.#stopCurrent?.();
      }
    })().catch(() => undefined);
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
    const { reader, stop } = await openReader(this.deps.log, this.projection, checkpoint + 1);
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
        checkpoint = await applyBatch(
          this.deps.pool,
          { projection: this.projection, generation },
          checkpoint,
          batch.map(toFact),
          this.#log,
          { requireActive: true },
        );
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
