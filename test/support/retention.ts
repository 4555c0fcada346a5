import { sql } from "slonik";
import { expect } from "vitest";
import { z } from "zod";
import type { Log } from "../../streams/connection.ts";
import { readFrom } from "../../streams/read.ts";
import { streamHead } from "../../streams/stream-head.ts";
import { ingestSettled } from "./app-users.ts";
import { createApp, createProject } from "./catalog.ts";
import type { Client } from "./http.ts";
import type { TestService } from "./service.ts";
import type { SignedIn } from "./users.ts";

export const DAY = 86_400_000;

/** Every read model of INGEST. */
export const INGEST_READ_MODELS = ["events", "app_users", "metric_events", "funnel_events"];

/** A project with these fields (retention overrides among them), an apple app, its client key and an import key. */
export type ImportTarget = { projectId: string; appId: string; bundleId: string; clientKey: string; importKey: string };

export async function importTarget(http: Client, owner: SignedIn, projectFields: Record<string, unknown>): Promise<ImportTarget> {
  const project = await createProject(http, owner.token, owner.teamId, projectFields);
  const app = await createApp(http, owner.token, project.id);
  const key = await http.post("/v1/auth/keys", { name: "importer", key_type: "import", app_id: app.id }, { token: owner.token });
  expect(key.status).toBe(201);
  return { projectId: project.id, appId: app.id, bundleId: app.bundle_id, clientKey: app.client_secret, importKey: key.body.api_key.secret };
}

/** POST /v1/import of `events`; every one must be accepted or updated. */
export async function importEvents(http: Client, target: ImportTarget, events: object[]): Promise<void> {
  const answer = await http.post("/v1/import", { events }, { token: target.importKey });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.rejected, JSON.stringify(answer.body)).toBe(0);
}

/** POST /v1/ingest of `events` with the target's client key; every one must be accepted. */
export async function ingestEvents(http: Client, target: ImportTarget, events: object[]): Promise<void> {
  const answer = await http.post("/v1/ingest", { bundle_id: target.bundleId, events }, { token: target.clientKey });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.rejected, JSON.stringify(answer.body)).toBe(0);
}

/** Waits until every INGEST read model has applied the stream up to its head. */
export const allIngestSettled = (service: TestService) => ingestSettled(service, INGEST_READ_MODELS);

/** One text or time column (times as ISO 8601) of the rows of a read model's public view that belong to `projectId`, sorted. */
export async function columnOf(service: TestService, view: string, column: string, projectId: string): Promise<string[]> {
  const values = await service.pool.anyFirst(sql.type(z.object({ value: z.string() }))`
    select ${sql.identifier([column])} as value from ${sql.identifier([view])} where project_id = ${projectId}`);
  return [...values].sort();
}

/** Every message INGEST still stores, as (sequence, subject), read in order up to its head. */
export async function storedMessages(log: Log): Promise<{ seq: number; subject: string }[]> {
  const head = await streamHead(log, "INGEST");
  if (head === 0) return [];
  const { messages, stop } = await readFrom(log, "INGEST", 1, 1024 * 1024);
  const found: { seq: number; subject: string }[] = [];
  try {
    for await (const message of messages) {
      found.push({ seq: message.seq, subject: message.subject });
      if (message.seq >= head) break;
    }
  } finally {
    stop();
  }
  return found;
}
