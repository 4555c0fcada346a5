import pg from "pg";
import type { Logger } from "pino";
import { MIGRATION_LOCK } from "./migrate.ts";
import { partitionLockName } from "./fact-partitions.ts";
import type { Projection } from "./projection.ts";

type CheckpointRow = { partition: number; partitions: number; last_seq: string; generation: number };

/**
 * Splits each INGEST read model's active generation into `partitions` (INGEST_PARTITIONS), where
 * that can be done without applying a fact twice or skipping one: every current partition stands
 * at the same sequence (always so for an unsplit read model, and for a split one once the stream
 * is idle), and no instance holds any of their locks (none is applying). The new partitions all
 * start from that sequence. Otherwise the read model keeps its partitions, and a warning says how
 * to change them: `replay` builds a generation with the new count. Runs under the migration lock.
 * @throws the database error when Postgres cannot answer
 */
export async function arrangePartitions(databaseUrl: string, projections: readonly Projection[], partitions: number, logger: Logger): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    for (const projection of projections.filter((candidate) => candidate.stream === "INGEST")) {
      await arrange(client, projection, partitions, logger);
    }
  } finally {
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}

async function arrange(client: pg.Client, projection: Projection, partitions: number, logger: Logger): Promise<void> {
  const { rows } = await client.query<CheckpointRow>(
    `select c.partition, c.partitions, c.last_seq, c.generation from projection_checkpoints c
       join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
      where c.projection = $1 order by c.partition`,
    [projection.name],
  );
  if (rows.length === 0 || (rows.length === partitions && rows.every((row) => row.partitions === partitions))) return;
  const seqs = new Set(rows.map((row) => row.last_seq));
  const names = Array.from({ length: Math.max(rows.length, partitions) }, (_, partition) => partitionLockName(projection.name, partition));
  const locked: string[] = [];
  try {
    for (const name of names) {
      const { rows: answer } = await client.query<{ locked: boolean }>("select pg_try_advisory_lock(hashtext($1)) as locked", [name]);
      if (!answer[0]!.locked) break;
      locked.push(name);
    }
    if (seqs.size !== 1 || locked.length < names.length) {
      logger.warn(
        { projection: projection.name, partitions: rows.length, wanted: partitions },
        "read model keeps its partitions: they are being applied or stand at different sequences; stop its projectors until they are idle, or replay it, to change them",
      );
      return;
    }
    const [{ generation, last_seq: lastSeq }] = rows as [CheckpointRow];
    await client.query("begin");
    await client.query("delete from projection_checkpoints where projection = $1 and generation = $2", [projection.name, generation]);
    await client.query(
      `insert into projection_checkpoints (projection, generation, stream, partition, partitions, last_seq)
       select $1, $2, $3, partition, $4, $5 from generate_series(0, $4 - 1) as partition`,
      [projection.name, generation, projection.stream, partitions, lastSeq],
    );
    await client.query("commit");
    logger.info({ projection: projection.name, from: rows.length, to: partitions, at: Number(lastSeq) }, "read model split into partitions");
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    for (const name of locked) await client.query("select pg_advisory_unlock(hashtext($1))", [name]);
  }
}
