import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { STREAM_KINDS } from "../../../domain/shared/stream-kind.ts";
import { activeCheckpoints } from "../../../projections/_runtime/checkpoint-queries.ts";
import { streamHead } from "../../../streams/stream-head.ts";
import { PUBLIC } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { TAGS } from "../schemas/common.ts";

const readiness = z.object({
  status: z.enum(["ready", "unavailable"]),
  nats: z.enum(["ok", "unreachable"]),
  postgres: z.enum(["ok", "unreachable"]),
  projections: z.array(
    z.object({ name: z.string(), stream: z.string(), checkpoint: z.number().int(), lag: z.number().int().nullable().describe("facts behind the stream's head") }),
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
      },
    );
  };
}
