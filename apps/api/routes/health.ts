import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { STREAM_KINDS } from "../../../domain/shared/stream-kind.ts";
import { activeCheckpoints, readModelPositions } from "../../../projections/_runtime/checkpoint-queries.ts";
import { streamHead } from "../../../streams/stream-head.ts";
import { PUBLIC } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { TAGS } from "../schemas/common.ts";

const readiness = z.object({
  status: z.enum(["ready", "unavailable"]),
  nats: z.enum(["ok", "unreachable"]),
  postgres: z.enum(["ok", "unreachable"]),
  projections: z.array(
    z.object({
      name: z.string(),
      stream: z.string(),
      checkpoint: z.number().int().describe("every fact up to here is applied: the lowest checkpoint of the read model's partitions"),
      lag: z.number().int().nullable().describe("facts behind the stream's head"),
      partitions: z
        .array(z.object({ partition: z.number().int(), checkpoint: z.number().int(), lag: z.number().int().nullable() }))
        .describe("each partition of a read model split by project (INGEST_PARTITIONS); one entry when unsplit"),
    }),
  ),
});
const tags = [TAGS.operations];

/** `/healthz` (the process answers) and `/readyz` (its dependencies answer, with each read model's lag), outside /v1. */
export function healthRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/healthz",
      { schema: { summary: "The process is up", tags, response: { 200: z.object({ status: z.literal("ok") }) } }, config: { access: PUBLIC } },
      async () => ({ status: "ok" as const }),
    );

    app.get(
      "/readyz",
      {
        schema: { summary: "NATS and Postgres answer; each read model's checkpoint and lag", tags, response: { 200: readiness, 503: readiness } },
        config: { access: PUBLIC },
      },
      async (_request, reply) => {
        const [heads, checkpoints] = await Promise.all([
          Promise.all(STREAM_KINDS.map(async (kind) => [kind as string, await streamHead(deps.log, kind)] as const)).catch(() => null),
          activeCheckpoints(deps.pool).catch(() => null),
        ]);
        const lastSeq = new Map(heads ?? []);
        const lagOf = (stream: string, checkpoint: number) => (lastSeq.has(stream) ? Math.max(0, lastSeq.get(stream)! - checkpoint) : null);
        const projections = readModelPositions(checkpoints ?? []).map((position) => ({
          name: position.projection,
          stream: position.stream,
          checkpoint: position.last_seq,
          lag: lagOf(position.stream, position.last_seq),
          partitions: (checkpoints ?? [])
            .filter((row) => row.projection === position.projection)
            .map((row) => ({ partition: row.partition, checkpoint: row.last_seq, lag: lagOf(row.stream, row.last_seq) })),
        }));
        const ready = heads !== null && checkpoints !== null;
        return reply.code(ready ? 200 : 503).send({
          status: ready ? "ready" : "unavailable",
          nats: heads !== null ? "ok" : "unreachable",
          postgres: checkpoints !== null ? "ok" : "unreachable",
          projections,
        });
      },
    );
  };
}
