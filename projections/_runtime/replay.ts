import pg from "pg";
import type { Logger } from "pino";
import { sql, type DatabasePool } from "slonik";
import { z } from "zod";
import { applyBatch, batchSizeOf, UNSPLIT, type ApplyTarget } from "./apply-batch.ts";
import { openReader, toFact } from "./batch-reader.ts";
import type { FactSource } from "./fact-source.ts";
import { migrateSchema } from "./migrate.ts";
import { generationSchema, type Projection } from "./projection.ts";
import { isTransient } from "./transient.ts";

export type ReplayDeps = {
  source: FactSource;
  pool: DatabasePool;
  databaseUrl: string;
  logger: Logger;
  /** The partitions an INGEST read model's new generation is split into at the swap (INGEST_PARTITIONS); 1 by default. */
  partitions?: number;
};

/**
 * Rebuilds a read model from sequence 1 into a fresh generation schema while the live one keeps
 * serving, then swaps the public views over in one transaction and drops the old generation.
 * During the swap the generation row is locked, so the live projector pauses, then notices the
 * new generation and continues from its checkpoint. The replay applies the stream in one piece;
 * at the swap, an INGEST read model's generation is split into `deps.partitions`, each starting
 * where the replay ended. Returns the new generation number.
 * @throws the last error once the log or the database stays unavailable too long, any other error at once
 */
export async function replay(deps: ReplayDeps, projection: Projection): Promise<number> {
  const logger = deps.logger.child({ component: "replay", projection: projection.name });
  const generation = await prepareGeneration(deps, projection);
  const target = { projection, generation, ...UNSPLIT };
  let checkpoint = 0;

  // Catch up outside the swap lock until close to the head of the stream. NATS or Postgres going
  // away only pauses the catch-up: it resumes from the checkpoint the new generation stored.
  for (let failures = 0; ; ) {
    try {
      const head = await deps.source.head(projection.stream);
      if (head - checkpoint < batchSizeOf(projection)) break;
      checkpoint = await readAndApply(deps, target, checkpoint, head, deps.pool, logger);
      failures = 0;
    } catch (error) {
      failures += 1;
      if (failures > CATCH_UP_ATTEMPTS || !(isTransient(error) || /consumer ended/.test(String(error)))) throw error;
      logger.warn({ err: error, checkpoint }, "replay interrupted; resuming from its checkpoint");
      await new Promise((resolve) => setTimeout(resolve, 1_000 * failures));
      checkpoint = await storedCheckpoint(deps, projection, generation).catch(() => checkpoint);
    }
  }

  await deps.pool.transaction(async (tx) => {
    const previous = await tx.oneFirst(sql.type(z.object({ active_generation: z.number() }))`
      select active_generation from projection_generations where projection = ${projection.name} for update`);
    const head = await deps.source.head(projection.stream);
    checkpoint = await readAndApply(deps, target, checkpoint, head, tx, logger);
    const partitions = projection.stream === "INGEST" ? (deps.partitions ?? 1) : 1;
    if (partitions > 1) {
      await tx.query(sql.unsafe`
        insert into projection_checkpoints (projection, generation, stream, partition, partitions, last_seq)
        select ${projection.name}, ${generation}, ${projection.stream}, partition, ${partitions}, ${checkpoint}
          from generate_series(0, ${partitions - 1}) as partition
        on conflict (projection, generation, partition) do update set partitions = excluded.partitions, last_seq = excluded.last_seq`);
    }
    await tx.query(sql.unsafe`update projection_generations set active_generation = ${generation} where projection = ${projection.name}`);
    // Views are recreated on this transaction's connection so the swap commits atomically.
    const schema = generationSchema(projection.name, generation);
    const tables = await tx.anyFirst(sql.type(z.object({ name: z.string() }))`
      select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = ${schema} and c.relkind in ('r', 'p') and not c.relispartition order by 1`);
    for (const table of tables) {
      await tx.query(sql.unsafe`create or replace view ${sql.identifier(["public", table])} as select * from ${sql.identifier([schema, table])}`);
    }
    logger.info({ from: previous, to: generation, checkpoint }, "swapped read model generation");
  });

  await dropOldGenerations(deps, projection, generation);
  return generation;
}

const CATCH_UP_ATTEMPTS = 30;
const STALL_MS = 20_000;

/** The stream holds facts the reader has not delivered for a long time: a consumer lost in a reconnect. */
class ReaderStalledTimeout extends Error {
  override name = "ReaderStalledTimeout";
}

async function nextOrStall<T>(next: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReaderStalledTimeout(`no fact delivered for ${STALL_MS} ms`)), STALL_MS);
  });
  try {
    return await Promise.race([next, stalled]);
  } finally {
    clearTimeout(timer);
  }
}

async function storedCheckpoint(deps: ReplayDeps, projection: Projection, generation: number): Promise<number> {
  return deps.pool.oneFirst(sql.type(z.object({ last_seq: z.number() }))`
    select last_seq from projection_checkpoints where projection = ${projection.name} and generation = ${generation} and partition = 0`);
}

async function prepareGeneration(deps: ReplayDeps, projection: Projection): Promise<number> {
  const client = new pg.Client({ connectionString: deps.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ next: number }>(
      "select coalesce(max(generation), 0) + 1 as next from projection_checkpoints where projection = $1",
      [projection.name],
    );
    const generation = rows[0]!.next;
    const schema = generationSchema(projection.name, generation);
    await client.query(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`);
    await client.query("delete from schema_migrations where schema_name = $1", [schema]);
    await migrateSchema(client, projection, schema);
    await client.query(
      `insert into projection_checkpoints (projection, generation, stream, last_seq) values ($1, $2, $3, 0)
       on conflict (projection, generation, partition) do update set last_seq = 0, partitions = 1`,
      [projection.name, generation, projection.stream],
    );
    return generation;
  } finally {
    await client.end();
  }
}

async function readAndApply(
  deps: ReplayDeps,
  target: ApplyTarget,
  from: number,
  until: number,
  db: Parameters<typeof applyBatch>[0],
  logger: Logger,
): Promise<number> {
  if (until <= from) return from;
  let checkpoint = from;
  const { reader, stop } = await openReader(deps.source, target.projection, from + 1);
  try {
    while (checkpoint < until) {
      const batch = await nextOrStall(reader.next(batchSizeOf(target.projection)));
      if (batch === null) throw reader.failure ?? new Error("consumer ended during replay");
      const facts = batch.map(toFact).filter((fact) => fact.seq <= until);
      if (facts.length === 0) break;
      checkpoint = await applyBatch(db, target, checkpoint, facts, logger, { requireActive: false });
      if (facts.length < batch.length) break;
    }
  } finally {
    stop();
  }
  return checkpoint;
}

async function dropOldGenerations(deps: ReplayDeps, projection: Projection, keep: number): Promise<void> {
  const old = await deps.pool.anyFirst(sql.type(z.object({ generation: z.number() }))`
    select generation from projection_checkpoints where projection = ${projection.name} and generation <> ${keep}`);
  for (const generation of old) {
    const schema = generationSchema(projection.name, generation);
    await deps.pool.query(sql.unsafe`drop schema if exists ${sql.identifier([schema])} cascade`);
    await deps.pool.query(sql.unsafe`delete from projection_checkpoints where projection = ${projection.name} and generation = ${generation}`);
    await deps.pool.query(sql.unsafe`delete from schema_migrations where schema_name = ${schema}`);
  }
}
