import { randomUUID } from "node:crypto";
import type { Client, RequestOptions } from "./http.ts";
import { waitUntil } from "./processes.ts";

/** A valid ingest event; `fields` override or add to it. */
export const anEvent = (fields: Record<string, unknown> = {}) => ({
  message: "screen_view",
  level: "info",
  session_id: randomUUID(),
  client_event_id: randomUUID(),
  environment: "ios",
  ...fields,
});

/** POST /v1/ingest with a client key; `bundle_id` is sent when given. */
export const ingest = (http: Client, clientKey: string, body: unknown, options: RequestOptions = {}) =>
  http.post("/v1/ingest", body, { ...options, token: clientKey });

/**
 * Polls GET /v1/events with `query` until `ready` holds for the answer (projection is
 * asynchronous). Polls every 200 ms, below the token bucket's refill rate of 10 a second.
 */
export async function eventsWhen(http: Client, token: string, query: string, ready: (events: any[]) => boolean, timeoutMs = 20_000): Promise<any[]> {
  return waitUntil(
    `GET /v1/events?${query} to match`,
    async () => {
      const response = await http.get(`/v1/events?${query}`, { token });
      if (response.status !== 200) throw new Error(`GET /v1/events answered ${response.status}: ${JSON.stringify(response.body)}`);
      return ready(response.body.events) ? response.body.events : undefined;
    },
    timeoutMs,
    200,
  );
}
