import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { IngestedEvent } from "../domain/ingest/events.ts";
import { generationSchema } from "../projections/_runtime/projection.ts";
import { activeGeneration } from "./checkpoints.ts";
import { historicSession } from "./seed.ts";
import { round } from "./stats.ts";

const SCRATCH = "bench_raw_copy";
const COLUMNS = [
  "id", "app_id", "project_id", "client_event_id", "session_id", "user_id", "api_key_id", "level", "source_module", "message", "screen_name",
  "custom_attributes", "environment", "os_version", "app_version", "sdk_name", "sdk_version", "build_number", "device_model", "locale",
  "country_code", "is_dev", "timestamp", "received_at",
] as const;
/** Rows per text chunk handed to the COPY stream: about a megabyte. */
const CHUNK_ROWS = 2_000;

const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** One value in COPY's text format: \N for null, backslash escapes for the characters that delimit. */
function field(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!);
}

/** `count` rows as the events read model stores the seeded history, in COPY text chunks; built before the clock starts. */
function copyChunks(count: number, scope: { projectIds: string[]; appIds: string[]; keyId: string }): string[] {
  const now = Date.now();
  const receivedAt = new Date(now).toISOString();
  const chunks: string[] = [];
  let lines: string[] = [];
  let appIndex = 0;
  while (count > 0) {
    const session: IngestedEvent[] = historicSession(now, Math.min(100, count));
    count -= session.length;
    appIndex = (appIndex + 1) % scope.appIds.length;
    const app = scope.appIds[appIndex]!;
    const project = scope.projectIds[appIndex % scope.projectIds.length]!;
    for (const event of session) {
      const row: Record<(typeof COLUMNS)[number], unknown> = { ...event, app_id: app, project_id: project, api_key_id: scope.keyId, country_code: "DE", received_at: receivedAt };
      lines.push(COLUMNS.map((column) => field(row[column])).join("\t"));
      if (lines.length === CHUNK_ROWS) {
        chunks.push(`${lines.join("\n")}\n`);
        lines = [];
      }
    }
  }
  if (lines.length > 0) chunks.push(`${lines.join("\n")}\n`);
  return chunks;
}

export type CopyFigures = { rows: number; statements: number; seconds: number; rows_per_second: number; table: string };

/**
 * The most rows a second Postgres takes into a table shaped like the events read model: a scratch
 * table made `like` the active generation's events table, with its indexes, filled by `statements`
 * COPY statements one after another on one connection (one writer, as the projector is), each its
 * own transaction. Only the COPYs are timed: the rows are encoded beforehand, so the figure is the
 * database's and the disk's, not this process's. The scratch schema is dropped afterwards.
 */
export async function measureCopyRate(databaseUrl: string, rows: number, statements: number): Promise<CopyFigures> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const source = `${generationSchema("events", await activeGeneration(client, "events"))}.events`;
    await client.query(`drop schema if exists ${SCRATCH} cascade`);
    await client.query(`create schema ${SCRATCH}`);
    await client.query(`create table ${SCRATCH}.events (like ${source} including all)`);
    const scope = { projectIds: [randomUUID()], appIds: Array.from({ length: 64 }, () => randomUUID()), keyId: randomUUID() };
    const perStatement = Math.ceil(rows / statements);
    let copied = 0;
    let ms = 0;
    for (let statement = 0; statement < statements && copied < rows; statement += 1) {
      const chunks = copyChunks(Math.min(perStatement, rows - copied), scope);
      const started = performance.now();
      await pipeline(Readable.from(chunks), client.query(copyFrom(`copy ${SCRATCH}.events (${COLUMNS.map((c) => `"${c}"`).join(", ")}) from stdin`)));
      ms += performance.now() - started;
      copied += Math.min(perStatement, rows - copied);
    }
    return { rows: copied, statements, seconds: round(ms / 1000, 2), rows_per_second: Math.round(copied / (ms / 1000)), table: source };
  } finally {
    await client.query(`drop schema if exists ${SCRATCH} cascade`).catch(() => undefined);
    await client.end();
  }
}
