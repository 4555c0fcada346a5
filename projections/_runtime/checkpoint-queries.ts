import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";

const checkpointRow = z.object({ projection: z.string(), generation: z.number(), stream: z.string(), partition: z.number(), partitions: z.number(), last_seq: z.number() });

export type ActiveCheckpoint = z.infer<typeof checkpointRow>;

/**
 * Where each read model's active generation stands: the last sequence each of its partitions
 * applied of its stream (one row for an unsplit read model), ordered by read model and partition
 * (a replay's shadow generation is not listed).
 * @throws the database error when Postgres cannot answer
 */
export const activeCheckpoints = (db: CommonQueryMethods): Promise<readonly ActiveCheckpoint[]> =>
  db.any(sql.type(checkpointRow)`
    select c.projection, c.generation, c.stream, c.partition, c.partitions, c.last_seq from projection_checkpoints c
      join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
     order by c.projection, c.partition`);

/** Each read model's own position: the lowest checkpoint of its partitions, below which every fact is applied. */
export function readModelPositions(rows: readonly ActiveCheckpoint[]): ActiveCheckpoint[] {
  const lowest = new Map<string, ActiveCheckpoint>();
  for (const row of rows) {
    const known = lowest.get(row.projection);
    if (!known || row.last_seq < known.last_seq) lowest.set(row.projection, row);
  }
  return [...lowest.values()];
}

/** How many partitions the active generation of `projection` is split into (1 when unsplit). */
export const storedPartitions = (db: CommonQueryMethods, projection: string): Promise<number> =>
  db.oneFirst(sql.type(z.object({ partitions: z.number() }))`
    select coalesce(max(c.partitions), 1)::int as partitions from projection_checkpoints c
      join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
     where c.projection = ${projection}`);
