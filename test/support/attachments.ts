import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OneAtATime } from "../../apps/commands/one-at-a-time.ts";
import type { Config } from "../../apps/config.ts";
import type { AttachmentStore } from "../../apps/storage/attachment-store.ts";
import type { AttachmentCleanupDeps } from "../../apps/worker/jobs/attachment-cleanup.ts";
import { ProgressWatcher } from "../../projections/_runtime/progress.ts";
import type { Client, HttpResponse } from "./http.ts";
import { testConfig, type TestService } from "./service.ts";

/** The session secret the attachment tests run with, so they can sign download tokens themselves. */
export const TEST_JWT_SECRET = "attachment-tests-secret-0123456789abcdef";

/** A test service's configuration with attachments in a fresh directory (or S3 settings given as overrides). */
export async function attachmentConfig(overrides: Record<string, string> = {}): Promise<Config> {
  const dir = await mkdtemp(join(tmpdir(), "attachments-"));
  return testConfig({ JWT_SECRET: TEST_JWT_SECRET, ATTACHMENTS_DIR: dir, ...overrides });
}

export type File = { bytes: Buffer; sha256: string };

/** `size` random bytes and their SHA-256. */
export function aFile(size: number): File {
  const bytes = randomBytes(size);
  return { bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** A reservation body for `file`; `fields` override or add to it. */
export const reservationFor = (file: File, fields: Record<string, unknown> = {}) => ({
  client_event_id: randomUUID(),
  original_filename: "screen.png",
  content_type: "image/png",
  size_bytes: file.bytes.length,
  sha256: file.sha256,
  ...fields,
});

/** POST /v1/ingest/attachment with a client key. */
export const reserve = (http: Client, clientKey: string, body: unknown) => http.post("/v1/ingest/attachment", body, { token: clientKey });

/** The path and query of a URL the API handed out (its host is PUBLIC_BASE_URL, not the test server), or of a path. */
export const pathOf = (url: string) => {
  const parsed = new URL(url, "http://relative.invalid");
  return `${parsed.pathname}${parsed.search}`;
};

/** PUT the bytes to an attachment as application/octet-stream. */
export const upload = (http: Client, clientKey: string, attachmentId: string, bytes: Uint8Array, headers: Record<string, string> = {}) =>
  http.call("PUT", `/v1/ingest/attachment/${attachmentId}`, { token: clientKey, rawBody: bytes, headers: { "content-type": "application/octet-stream", ...headers } });

/** Reserves and uploads `file`; returns the attachment id. */
export async function reserveAndUpload(http: Client, clientKey: string, file: File, fields: Record<string, unknown> = {}): Promise<string> {
  const reserved = await reserve(http, clientKey, reservationFor(file, fields));
  expectStatus(reserved, 201);
  expectStatus(await upload(http, clientKey, reserved.body.attachment_id, file.bytes), 200);
  return reserved.body.attachment_id;
}

/** Fails with the answer's body when the status is not the expected one. */
export function expectStatus(response: HttpResponse, status: number): void {
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
}

/** GET a download URL's path raw: bytes and headers, no JSON parsing. */
export async function download(baseUrl: string, url: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(`${baseUrl}${pathOf(url)}`);
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/**
 * What the cleanup job gets in the worker, built from a started test service: its log, pool and
 * configuration, a progress watcher of its own and the given store. `close` stops the watcher.
 */
export async function cleanupDeps(service: TestService, store: AttachmentStore): Promise<AttachmentCleanupDeps & { close: () => Promise<void> }> {
  const progress = new ProgressWatcher(service.databaseUrl, service.logger);
  await progress.start();
  return { config: service.config, log: service.log, pool: service.pool, progress, oneAtATime: new OneAtATime(), store, logger: service.logger, close: () => progress.stop() };
}
