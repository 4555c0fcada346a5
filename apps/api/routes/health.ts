import type { FastifyInstance } from "fastify";
import { sql } from "slonik";
import { z } from "zod";
import type { ApiDeps } from "../deps.ts";

const checkpointRow = z.object({ projection: z.string(), stream: z.string(), last_seq: z.number() });

export function healthRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/healthz", async () => ({ status: "ok" }));

    /** Ready when NATS and Postgres answer; reports each read model's lag behind its stream. */
    app.get("/readyz", async (_request, reply) => {
      const [natsInfo, checkpoints] = await Promise.all([
        Promise.all(
          (["DOMAIN", "INGEST"] as const).map(async (kind) => {
            const info = await deps.log.jsm.streams.info(deps.log.names.stream(kind));
            return [kind, info.state.last_seq] as const;
          }),
        ).catch(() => null),
        deps.pool
          .any(sql.type(checkpointRow)`
            select c.projection, c.stream, c.last_seq from projection_checkpoints c
              join projection_generations g on g.projection = c.projection and g.active_generation = c.generation
             order by c.projection`)
          .catch(() => null),
      ]);
      const lastSeq = new Map(natsInfo ?? []);
      const projections = (checkpoints ?? []).map((row) => ({
        name: row.projection,
        stream: row.stream,
        checkpoint: row.last_seq,
        lag: lastSeq.has(row.stream as "DOMAIN") ? Math.max(0, lastSeq.get(row.stream as "DOMAIN")! - row.last_seq) : null,
      }));
      const ready = natsInfo !== null && checkpoints !== null;
      return reply.code(ready ? 200 : 503).send({
        status: ready ? "ready" : "unavailable",
        nats: natsInfo !== null ? "ok" : "unreachable",
        postgres: checkpoints !== null ? "ok" : "unreachable",
        projections,
      });
    });
  };
}
