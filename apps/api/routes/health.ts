import type { FastifyInstance } from "fastify";
import { STREAM_KINDS } from "../../../domain/shared/stream-kind.ts";
import { activeCheckpoints } from "../../../projections/_runtime/checkpoint-queries.ts";
import { streamHead } from "../../../streams/stream-head.ts";
import type { ApiDeps } from "../deps.ts";

export function healthRoutes(deps: ApiDeps) {
  return async (app: FastifyInstance) => {
    app.get("/healthz", async () => ({ status: "ok" }));

    /** Ready when NATS and Postgres answer; reports each read model's lag behind its stream. */
    app.get("/readyz", async (_request, reply) => {
      const [heads, checkpoints] = await Promise.all([
        Promise.all(STREAM_KINDS.map(async (kind) => [kind as string, await streamHead(deps.log, kind)] as const)).catch(() => null),
        activeCheckpoints(deps.pool).catch(() => null),
      ]);
      const lastSeq = new Map(heads ?? []);
      const projections = (checkpoints ?? []).map((row) => ({
        name: row.projection,
        stream: row.stream,
        checkpoint: row.last_seq,
        lag: lastSeq.has(row.stream) ? Math.max(0, lastSeq.get(row.stream)! - row.last_seq) : null,
      }));
      const ready = heads !== null && checkpoints !== null;
      return reply.code(ready ? 200 : 503).send({
        status: ready ? "ready" : "unavailable",
        nats: heads !== null ? "ok" : "unreachable",
        postgres: checkpoints !== null ? "ok" : "unreachable",
        projections,
      });
    });
  };
}
