import { randomUUID } from "node:crypto";
import { normalizeBatch } from "../../domain/ingest/batch.ts";
import { encodeFacts } from "../../domain/ingest/fact.ts";
import { newId } from "../../domain/shared/ids.ts";
import { append } from "../../streams/append.ts";
import type { Client } from "./http.ts";
import { waitUntil } from "./processes.ts";
import type { TestService } from "./service.ts";

const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** UTC midnight `days` days before now: fixed data sets are laid out from it, whatever the time of day. */
export const midnightDaysAgo = (days: number, now = Date.now()) => Math.floor((now - days * DAY) / DAY) * DAY;

/** `base` plus hours, minutes and seconds, as ISO 8601. */
export const at = (base: number, hours: number, minutes = 0, seconds = 0) => new Date(base + hours * HOUR + minutes * 60_000 + seconds * 1000).toISOString();

/** An ingest event for a metric; `attributes` become custom attributes (tracking_id, duration_ms, error...). */
export function metricEvent(slug: string, phase: string, timestamp: string, fields: Record<string, unknown> = {}, attributes: Record<string, string> = {}) {
  return {
    message: `metric:${slug}:${phase}`,
    level: phase === "fail" ? "error" : "info",
    session_id: randomUUID(),
    client_event_id: randomUUID(),
    environment: "ios",
    timestamp,
    custom_attributes: attributes,
    ...fields,
  };
}

/** An ingest event for a funnel step. */
export function stepEvent(stepName: string, userId: string, timestamp: string, fields: Record<string, unknown> = {}) {
  return {
    message: `step:${stepName}`,
    level: "info",
    session_id: randomUUID(),
    client_event_id: randomUUID(),
    environment: "ios",
    user_id: userId,
    timestamp,
    ...fields,
  };
}

/** POSTs events to /v1/ingest in batches of 100 and checks every one was accepted. */
export async function ingestAll(http: Client, target: { clientKey: string; app: { bundle_id: string | null } }, events: readonly object[]): Promise<void> {
  for (let start = 0; start < events.length; start += 100) {
    const body = { bundle_id: target.app.bundle_id ?? undefined, events: events.slice(start, start + 100) };
    const answer = await http.post("/v1/ingest", body, { token: target.clientKey });
    if (answer.status !== 200 || answer.body.rejected !== 0) throw new Error(`ingest answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
}

/**
 * Appends an import batch straight to the INGEST stream, as POST /v1/import will: the events are
 * normalized in import mode and encoded exactly as the API encodes ingest batches.
 */
export async function appendImport(service: TestService, app: { id: string; team_id: string; project_id: string; platform: "apple" | "android" | "web" | "backend" }, keyId: string, events: readonly object[]): Promise<void> {
  const now = Date.now();
  const batch = normalizeBatch(events, { mode: "import", platform: app.platform, nowMs: now });
  if (batch.rejected > 0) throw new Error(`import events rejected: ${JSON.stringify(batch.errors)}`);
  const facts = encodeFacts(
    { batchId: newId(), mode: "import", app, apiKeyId: keyId, receivedAt: new Date(now).toISOString(), countryCode: null },
    batch.events,
    900_000,
  );
  for (const fact of facts) await append(service.log, service.log.names.ingestSubject(app.project_id, app.id), fact.payload, { msgId: fact.id });
}

/** GETs `path` until `ready` holds for the 200 answer's body (projection is asynchronous). */
export async function getWhen(http: Client, token: string, path: string, ready: (body: any) => boolean, timeoutMs = 20_000): Promise<any> {
  return waitUntil(
    `GET ${path} to match`,
    async () => {
      const answer = await http.get(path, { token });
      if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return ready(answer.body) ? answer.body : undefined;
    },
    timeoutMs,
    150,
  );
}

/** GET /v1/projects/:id/funnels/:slug/query: the analytics object, once the answer is a 200 for that slug. */
export async function funnelQuery(http: Client, token: string, projectId: string, slug: string, params = ""): Promise<any> {
  const answer = await http.get(`/v1/projects/${projectId}/funnels/${slug}/query?${params}`, { token });
  if (answer.status !== 200) throw new Error(`funnel query answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  if (answer.body.slug !== slug) throw new Error(`funnel query answered for ${answer.body.slug}, not ${slug}`);
  return answer.body.analytics;
}

/** Users per step of a funnel analytics object (or of one breakdown row). */
export const stepUsers = (analytics: any): number[] => analytics.steps.map((step: any) => step.unique_users);
