import { createReadStream } from "node:fs";
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { ProgressLine } from "./progress.ts";
import { errorOf, requestWithRetries, type ServiceTarget } from "./service-client.ts";

const BATCH_EVENTS = 1_000;

/**
 * The fields `POST /v1/import` takes of an exported event: everything the client sent. The
 * service assigns the rest again (`id`, `app_id`, `api_key_id`, `received_at`, and
 * `country_code`, which comes from the sender's connection).
 */
const SENT_FIELDS = [
  "client_event_id",
  "session_id",
  "user_id",
  "level",
  "source_module",
  "message",
  "screen_name",
  "custom_attributes",
  "environment",
  "os_version",
  "app_version",
  "sdk_name",
  "sdk_version",
  "build_number",
  "device_model",
  "locale",
  "is_dev",
  "timestamp",
] as const;

export type ImportSummary = { lines: number; skipped: number; accepted: number; updated: number; rejected: number; errors: string[]; seconds: number };

/** Where a run stopped: the lines already imported from a file of this size. */
type Position = { size: number; lines: number };

const positionFile = (file: string) => `${file}.import-position`;

async function savedPosition(file: string, size: number): Promise<number> {
  try {
    const position = JSON.parse(await readFile(positionFile(file), "utf8")) as Position;
    return position.size === size ? position.lines : 0;
  } catch {
    return 0;
  }
}

async function countLines(file: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(file)) for (const byte of chunk as Buffer) if (byte === 10) lines += 1;
  return lines;
}

/**
 * `npm run cli -- import <file.ndjson>`: the events of an export (or any NDJSON of event objects)
 * into the app of an import key, through `POST /v1/import` in batches of 1,000. Resumable: after
 * each stored batch the position is saved beside the file, and a re-run continues after it; an
 * event with a `client_event_id` sent twice (the batch in flight when a run was stopped) updates
 * the stored one instead of adding another.
 */
export async function importEvents(target: ServiceTarget, file: string): Promise<ImportSummary> {
  const { size } = await stat(file);
  const total = await countLines(file);
  const skip = await savedPosition(file, size);
  const summary: ImportSummary = { lines: 0, skipped: skip, accepted: 0, updated: 0, rejected: 0, errors: [], seconds: 0 };
  const progress = new ProgressLine("imported", total);
  let batch: Record<string, unknown>[] = [];
  /** The file line of each event in `batch`, for the position and for errors. */
  let batchLines: number[] = [];

  const send = async () => {
    if (batch.length === 0) return;
    const response = await requestWithRetries(target, "/v1/import", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ events: batch }),
    }, { safeToRepeat: false });
    if (!response.ok) throw new Error(`import refused at line ${batchLines[0]} (${response.status}): ${await errorOf(response)}`);
    const answer = (await response.json()) as { accepted: number; updated: number; rejected: number; errors?: { index: number; message: string }[] };
    summary.accepted += answer.accepted;
    summary.updated += answer.updated;
    summary.rejected += answer.rejected;
    for (const error of answer.errors ?? []) if (summary.errors.length < 20) summary.errors.push(`line ${batchLines[error.index]}: ${error.message}`);
    const through = batchLines[batchLines.length - 1]!;
    batch = [];
    batchLines = [];
    await writeFile(positionFile(file), JSON.stringify({ size, lines: through } satisfies Position));
    progress.update(through);
  };

  let line = 0;
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    line += 1;
    if (line <= skip || text.trim() === "") continue;
    summary.lines += 1;
    let exported: Record<string, unknown>;
    try {
      exported = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error(`line ${line} is not JSON`);
    }
    batch.push(Object.fromEntries(SENT_FIELDS.filter((field) => exported[field] !== undefined).map((field) => [field, exported[field]])));
    batchLines.push(line);
    if (batch.length === BATCH_EVENTS) await send();
  }
  await send();
  await rm(positionFile(file), { force: true });
  summary.seconds = progress.finish(total);
  return summary;
}
