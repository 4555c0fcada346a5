import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";

const checkpointRow = z.object({ projection: z.string(), generation: z.number(), stream: z.string(), last_seq: z.number() });

export type ActiveCheckpoint = z.infer<typeof checkpointRow>;

/**
 * Where each read model's active generation stands: the last sequence it applied of its stream,
 * ordered by read model (a replay's shadow generation is not listed).
 * @throws the database error when Postgres cannot answer
 */
export const activeCheckpoints = (db: CommonQueryMethods): Promise<readonly ActiveCheckpoint[]> =>
  db.any(sql.type(checkpointRow)`
    select c.projection, c.generation, c.stream, c.last_seq from projection_checkpoints c
      join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
     order by c.projection`);
