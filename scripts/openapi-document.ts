import pino from "pino";
import type { ApiDeps } from "../apps/api/deps.ts";
import { buildApp } from "../apps/api/app.ts";
import { loadConfig } from "../apps/config.ts";
import { createMetrics } from "../apps/observability/metrics.ts";

/**
 * A stand-in for every dependency a request would use (database, NATS, mailer...). Building the
 * app only registers routes, so none of them is touched; if registration ever starts using one,
 * this throws with its name instead of silently documenting a half-built app.
 */
function unusable(name: string): unknown {
  return new Proxy(() => undefined, {
    get: (_target, property) => {
      // Awaiting a value reads `then`: answering undefined keeps the stand-in from looking like a promise.
      if (property === "then") return undefined;
      throw new Error(`building the app for its OpenAPI document used deps.${name}.${String(property)}`);
    },
    apply: () => {
      throw new Error(`building the app for its OpenAPI document called deps.${name}()`);
    },
  });
}

/**
 * The service's OpenAPI document, exactly as `GET /v1/openapi.json` serves it, from the app built
 * without listening and without NATS or Postgres. The base URL is fixed so the output does not
 * depend on the machine that produced it.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ NODE_ENV: "development", PUBLIC_BASE_URL: "http://localhost:8080", LOG_LEVEL: "silent" });
  // Metrics are in-memory counters, not a dependency that answers: the real ones do no harm.
  const known: Record<string, unknown> = { config, logger: pino({ level: "silent" }), metrics: createMetrics("openapi") };
  const deps = new Proxy(known, { get: (target, property: string) => (property in target ? target[property] : unusable(property)) }) as ApiDeps;
  const app = await buildApp(deps);
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
