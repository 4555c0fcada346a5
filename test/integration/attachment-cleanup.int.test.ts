import { randomUUID } from "node:crypto";
import { access, utimes } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { openAttachmentStore, type AttachmentStore } from "../../apps/storage/attachment-store.ts";
import { runAttachmentCleanup } from "../../apps/worker/jobs/attachment-cleanup.ts";
import { aFile, attachmentConfig, cleanupDeps, expectStatus, pathOf, reservationFor, reserve, reserveAndUpload, upload } from "../support/attachments.ts";
import { projectWithApp } from "../support/catalog.ts";
import type { Client } from "../support/http.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * The attachment cleanup against the filesystem store, run as the worker runs it with `now` moved
 * ahead: deleted attachments purged after their grace with their bytes, expired reservations
 * purged, orphaned objects removed and fresh ones kept. Also the internal-redirect download.
 */

const DAY = 24 * 60 * 60 * 1000;
const REDIRECT = "/protected-attachments/";

let service: TestService;
let http: Client;
let owner: SignedIn;
let store: AttachmentStore;
let dir: string;

beforeAll(async () => {
  const config = await attachmentConfig({ ATTACHMENTS_INTERNAL_REDIRECT: REDIRECT });
  dir = config.attachments.dir;
  ({ service, http, owner } = await startWithOwner(config));
  store = await openAttachmentStore(config.attachments);
});
afterAll(async () => {
  await store.close();
  await stopTestService(service);
});

const exists = (key: string) => access(join(dir, key)).then(() => true, () => false);
/** The storage key of an attachment's row; undefined once the row is purged. */
const storageKeyOf = async (id: string) =>
  (await service.pool.maybeOneFirst(sql.type(z.object({ storage_key: z.string().nullable() }))`select storage_key from attachments where id = ${id}`)) ?? undefined;

/** Stores an object as an upload would, its modification time `ageMs` in the past. */
async function storedObject(key: string, ageMs: number): Promise<void> {
  await store.put(key, Readable.from([Buffer.from("orphan")]), { maxBytes: 6, declaredBytes: 6, contentType: "application/octet-stream" });
  const at = new Date(Date.now() - ageMs);
  await utimes(join(dir, key), at, at);
}

async function cleanup(now: Date, onStep?: (processed: number, total: number, message: string) => Promise<void>) {
  const deps = await cleanupDeps(service, store);
  try {
    return await runAttachmentCleanup(deps, now, onStep);
  } finally {
    await deps.close();
  }
}

describe("the attachment cleanup", () => {
  it("purges after the grace period and the reservation expiry, removes orphans and keeps everything else", async () => {
    const { project, clientKey } = await projectWithApp(http, owner.token, owner.teamId);
    const kept = await reserveAndUpload(http, clientKey, aFile(100));
    const deleted = await reserveAndUpload(http, clientKey, aFile(200));
    const deletedKey = (await storageKeyOf(deleted))!;
    expectStatus(await http.delete(`/v1/attachments/${deleted}`, { token: owner.token }), 200);
    const expired = (await reserve(http, clientKey, reservationFor(aFile(300)))).body.attachment_id;
    const keptKey = (await storageKeyOf(kept))!;
    const orphan = `${project.id}/${randomUUID()}/${randomUUID()}`;
    const leftover = `${project.id}/${kept}/${randomUUID()}`;
    const inProgress = `${project.id}/${expired}/${randomUUID()}`;
    await storedObject(orphan, 2 * 60 * 60 * 1000);
    await storedObject(leftover, 2 * 60 * 60 * 1000);
    await storedObject(inProgress, 0);

    // Two days on: the reservation expired, the deletion is still in its grace period.
    const steps: [number, number, string][] = [];
    const first = await cleanup(new Date(Date.now() + 2 * DAY), async (...step) => void steps.push(step));
    expect(first).toMatchObject({ deleted_purged: 0, reservations_expired: 1, orphaned_objects_deleted: 2, bytes_freed: 0 });
    expect(steps.at(-1)?.[2]).toBe("done");
    expect(await exists(deletedKey)).toBe(true);
    expect([await exists(orphan), await exists(leftover), await exists(inProgress), await exists(keptKey)]).toEqual([false, false, true, true]);
    expect(await upload(http, clientKey, expired, aFile(300).bytes)).toMatchObject({ status: 404 });
    expect((await http.get(`/v1/projects/${project.id}/attachment-usage`, { token: owner.token })).body).toMatchObject({ used_bytes: 100, file_count: 1 });

    // Eight days on: the deleted attachment's grace is over.
    const second = await cleanup(new Date(Date.now() + 8 * DAY));
    expect(second).toMatchObject({ deleted_purged: 1, reservations_expired: 0, bytes_freed: 200 });
    expect(await exists(deletedKey)).toBe(false);
    expect(await storageKeyOf(deleted)).toBeUndefined();
    expect(await exists(keptKey)).toBe(true);
    expect((await http.get(`/v1/attachments/${kept}`, { token: owner.token })).status).toBe(200);

    const audit = await http.get(`/v1/teams/${owner.teamId}/audit-logs?resource_type=attachment`, { token: owner.token });
    expect(audit.body.audit_logs.filter((entry: any) => entry.resource_id === deleted).map((entry: any) => entry.action)).toEqual(["delete"]);
  });

  it("stops where its progress report throws, before purging anything", async () => {
    const { clientKey } = await projectWithApp(http, owner.token, owner.teamId);
    const expired = (await reserve(http, clientKey, reservationFor(aFile(10)))).body.attachment_id;
    const cancelled = new Error("cancelled");
    await expect(cleanup(new Date(Date.now() + 2 * DAY), async () => Promise.reject(cancelled))).rejects.toBe(cancelled);
    expect((await http.get(`/v1/attachments/${expired}`, { token: owner.token })).status).toBe(200);
  });
});

describe("the internal redirect", () => {
  it("answers X-Accel-Redirect with the download headers and no body", async () => {
    const { clientKey } = await projectWithApp(http, owner.token, owner.teamId);
    const id = await reserveAndUpload(http, clientKey, aFile(5_000), { original_filename: "trace.json", content_type: "application/json" });
    const link = (await http.get(`/v1/attachments/${id}`, { token: owner.token })).body.download_url.url;
    const response = await fetch(`${service.baseUrl}${pathOf(link)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-accel-redirect")).toBe(`${REDIRECT}${await storageKeyOf(id)}`);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="trace.json"');
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });
});
