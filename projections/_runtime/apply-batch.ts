import type { Logger } from "pino";
import { sql, type DatabasePool, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import { partitionOfSubject } from "./fact-partitions.ts";
import { generationSchema, type Fact, type Projection } from "./projection.ts";
import { isTransient } from "./transient.ts";

const DEFAULT_MAX_BATCH = 2_000;

/** Facts per transaction for `projection`. */
export const batchSizeOf = (projection: Projection) => projection.maxBatch ?? DEFAULT_MAX_BATCH;

/** The checkpoint in Postgres is not where this runner thought: restart from the stored one. */
class PositionMoved extends Error {
  override name = "PositionMoved";
}

/**
 * Where a batch goes: a read model's generation and, for a read model split by project, one
 * partition of `partitions` (unsplit: partition 0 of 1). A partition reads the whole stream,
 * applies only its projects' facts and moves its checkpoint past the others'.
 */
export type ApplyTarget = { projection: Projection; generation: number; partition: number; partitions: number };

/** The whole read model in one piece: replays and unsplit read models. */
export const UNSPLIT = { partition: 0, partitions: 1 } as const;

/**
 * Applies `facts` in one transaction together with the checkpoint. The checkpoint row is locked and
 * compared with `expectedSeq` (compare-and-set), so a second runner, a replay swap or a redelivery
 * can never apply a fact twice. A fact that cannot be applied is parked with its error.
 * Returns the new checkpoint.
 * @throws PositionMoved when the checkpoint or the active generation is not what the caller expected
 * @throws the database error when Postgres is unavailable (see isTransient)
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
  { projection, generation, partition, partitions }: ApplyTarget,
  expectedSeq: number,
  facts: Fact[],
  options: { requireActive: boolean },
  oneByOne: boolean,
  log: Logger,
): Promise<number> {
  // One round trip for both checks, the generation's schema as the transaction's search path and,
  // for the read models of the INGEST stream, a commit that does not wait for the WAL flush: a read
  // model's rows and its checkpoint commit together, so a database crash that loses the last
  // commits loses their checkpoints as well, and the facts are applied again from the stream. The
  // DOMAIN read models keep waiting: they back sign-in, keys and permissions, whose writes answer
  // only once projected, and a user who just signed up must not be "not found" after a crash until
  // the projector has caught up again; their transactions are few and small. The generation row is
  // share-locked even for a replay, which needs no active generation: a swap waits for the batch,
  // and the replay's own swap transaction holds that row already.
  const commitWait = projection.stream === "INGEST" ? sql.fragment`'off'` : sql.fragment`current_setting('synchronous_commit')`;
  const position = await tx.one(
    sql.type(z.object({ last_seq: z.number(), partitions: z.number(), active_generation: z.number() }))`
      select c.last_seq, c.partitions, g.active_generation,
             set_config('search_path', ${`${generationSchema(projection.name, generation)}, public`}, true) as search_path,
             set_config('synchronous_commit', ${commitWait}, true) as commit_wait
        from projection_checkpoints c join projection_generations g on g.projection = c.projection
       where c.projection = ${projection.name} and c.generation = ${generation} and c.partition = ${partition}
         for update of c for share of g`,
  );
  if (position.partitions !== partitions) {
    throw new PositionMoved(`${projection.name} is split into ${position.partitions} partitions now, not ${partitions}`);
  }
  if (options.requireActive && position.active_generation !== generation) {
    throw new PositionMoved(`generation ${generation} of ${projection.name} is no longer active`);
  }
  const stored = position.last_seq;
  if (stored !== expectedSeq) throw new PositionMoved(`checkpoint of ${projection.name} is ${stored}, expected ${expectedSeq}`);
  const fresh = facts.filter((fact) => fact.seq > stored);
  if (fresh.length === 0) return stored;
  const own = partitions === 1 ? fresh : fresh.filter((fact) => partitionOfSubject(fact.subject, partitions) === partition);
  if (!oneByOne) {
    if (own.length > 0) await projection.apply(tx, own);
  } else {
    for (const fact of own) {
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
       where projection = ${projection.name} and generation = ${generation} and partition = ${partition}
    )
    select pg_notify('projector_progress', ${`${projection.name}:${generation}:${partition}:${lastSeq}`})`);
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
