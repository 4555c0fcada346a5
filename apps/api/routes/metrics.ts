import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { Gauge } from "prom-client";
import { STREAM_KINDS } from "../../../domain/shared/stream-kind.ts";
import { activeCheckpoints } from "../../../projections/_runtime/checkpoint-queries.ts";
import { streamHead } from "../../../streams/stream-head.ts";
import { PUBLIC } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { TAGS } from "../schemas/common.ts";

const prometheusText = {
  description: "Prometheus text exposition (version 0.0.4)",
  content: { "text/plain": { schema: { type: "string" } } },
};

/**
 * `GET /metrics`, outside /v1 like the health routes, for Prometheus to scrape: this instance's
 * HTTP answers, ingest outcomes and NATS reconnects, and (under `npm start`) its background
 * processes' projector batches and job runs. Each read model's lag is read at scrape time from
 * the checkpoints and the streams' heads, as `/readyz` reports it: every API instance can answer
 * it, wherever the projector runs. No secrets are in it; like `/readyz` it is open, and a
 * deployment that does not want it public keeps it off the public proxy (docs/operations.md).
 */
export function metricsRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  new Gauge({
    name: "projector_lag_facts",
    help: "Facts in the stream after the checkpoint of a read model's partition (partition 0 of an unsplit one)",
    labelNames: ["read_model", "stream", "partition"],
    registers: [deps.metrics.registry],
    async collect() {
      this.reset();
      const [heads, checkpoints] = await Promise.all([
        Promise.all(STREAM_KINDS.map(async (kind) => [kind as string, await streamHead(deps.log, kind)] as const)).catch(() => null),
        activeCheckpoints(deps.pool).catch(() => null),
      ]);
      if (!heads || !checkpoints) return; // unknown while NATS or Postgres is away: no series rather than a wrong one
      const head = new Map(heads);
      for (const row of checkpoints) {
        const last = head.get(row.stream);
        if (last !== undefined) this.set({ read_model: row.projection, stream: row.stream, partition: String(row.partition) }, Math.max(0, last - row.last_seq));
      }
    },
  });

  return async (app) => {
    app.get(
      "/metrics",
      {
        schema: { summary: "Prometheus metrics of this instance and its background processes", tags: [TAGS.operations], response: { 200: prometheusText } },
        config: { access: PUBLIC },
      },
      async (_request, reply) => reply.type(deps.metrics.registry.contentType).header("cache-control", "no-store").send(await deps.metrics.exposition()),
    );
  };
}
