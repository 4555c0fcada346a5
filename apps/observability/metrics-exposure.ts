import type { ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import type { Logger } from "pino";
import type { Metrics, MetricsSnapshot } from "./metrics.ts";

type Request = { type: "metrics-request"; id: number };
type Answer = { type: "metrics"; id: number; snapshot: MetricsSnapshot };

const isRequest = (message: unknown): message is Request => typeof message === "object" && message !== null && (message as Request).type === "metrics-request";
const isAnswer = (message: unknown): message is Answer => typeof message === "object" && message !== null && (message as Answer).type === "metrics";

/** A scrape waits this long for a child; one that is restarting is left out of that scrape. */
const CHILD_ANSWER_MS = 2_000;

/**
 * How a process that does not serve the API shows its metrics: a child of `npm start` answers its
 * parent over the IPC channel (the API's `/metrics` includes it); a process started on its own
 * (`npm run start:projector`, `start:worker`) serves them at `http://HOST:METRICS_PORT/metrics`
 * when METRICS_PORT is set. Returns what stops the serving.
 */
export async function exposeMetrics(metrics: Metrics, options: { port: number | undefined; host: string; logger: Logger }): Promise<() => Promise<void>> {
  if (process.send) {
    const answer = (message: unknown) => {
      if (!isRequest(message)) return;
      // A parent gone mid-scrape is no reason to fail: the child stops with it anyway.
      metrics.registry
        .getMetricsAsJSON()
        .then((snapshot) => process.connected && process.send?.({ type: "metrics", id: message.id, snapshot } satisfies Answer, undefined, {}, () => undefined))
        .catch((error: unknown) => options.logger.warn({ err: error }, "metrics could not be collected for the parent"));
    };
    process.on("message", answer);
    return async () => void process.off("message", answer);
  }
  if (options.port === undefined) return async () => undefined;
  const server = createServer((request, response) => {
    if (request.method !== "GET" || request.url !== "/metrics") {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "only GET /metrics is served here" }));
      return;
    }
    metrics.exposition().then(
      (text) => response.writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" }).end(text),
      (error: unknown) => {
        options.logger.warn({ err: error }, "metrics could not be collected");
        response.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "metrics unavailable; retry" }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(options.port, options.host, resolve));
  options.logger.info({ port: options.port }, "metrics served at /metrics");
  return () => new Promise((resolve) => server.close(() => resolve()));
}

/** The parent's side: asks a forked child for its metrics; undefined when it has none to give in time. */
export function metricsOfChild(child: () => ChildProcess | undefined): () => Promise<MetricsSnapshot | undefined> {
  let next = 0;
  return () => {
    const current = child();
    if (!current?.connected) return Promise.resolve(undefined);
    const id = (next += 1);
    return new Promise((resolve) => {
      const done = (snapshot: MetricsSnapshot | undefined) => {
        clearTimeout(timer);
        current.off("message", listen);
        resolve(snapshot);
      };
      const listen = (message: unknown) => isAnswer(message) && message.id === id && done(message.snapshot);
      const timer = setTimeout(() => done(undefined), CHILD_ANSWER_MS);
      current.on("message", listen);
      current.send({ type: "metrics-request", id } satisfies Request, (error) => error && done(undefined));
    });
  };
}
