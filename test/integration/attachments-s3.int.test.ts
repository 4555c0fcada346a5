import { randomBytes, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { sql } from "slonik";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { openAttachmentStore, type AttachmentStore } from "../../apps/storage/attachment-store.ts";
import { runAttachmentCleanup } from "../../apps/worker/jobs/attachment-cleanup.ts";
import { aFile, attachmentConfig, cleanupDeps, download, expectStatus, reservationFor, reserve, reserveAndUpload, upload } from "../support/attachments.ts";
import { projectWithApp } from "../support/catalog.ts";
import type { Client } from "../support/http.ts";
import { startS3Server, type S3Server } from "../support/s3-server.ts";
import { startWithOwner, stopTestService, type TestService } from "../support/service.ts";
import type { SignedIn } from "../support/users.ts";

/**
 * Attachments with the S3 driver (an in-process S3 server): the upload and download round trip,
 * the upload refusals that must leave nothing in the bucket, and the cleanup purging bytes there.
 */

const DAY = 24 * 60 * 60 * 1000;

let s3: S3Server;
let service: TestService;
let http: Client;
let owner: SignedIn;
let store: AttachmentStore;
let clientKey: string;
let projectId: string;

beforeAll(async () => {
  s3 = await startS3Server();
  const bucket = `attachments-${randomBytes(4).toString("hex")}`;
  const config = await attachmentConfig({
    S3_BUCKET: bucket,
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: "us-east-1",
    S3_ACCESS_KEY_ID: "S3RVER",
    S3_SECRET_ACCESS_KEY: "S3RVER",
    S3_FORCE_PATH_STYLE: "true",
  });
  ({ service, http, owner } = await startWithOwner(config));
  store = await openAttachmentStore(config.attachments);
  ({ clientKey, project: { id: projectId } } = await projectWithApp(http, owner.token, owner.teamId));
});
afterAll(async () => {
  await store.close();
  await stopTestService(service);
  await s3.stop();
});

const storageKeyOf = async (id: string) =>
  (await service.pool.maybeOneFirst(sql.type(z.object({ storage_key: z.string().nullable() }))`select storage_key from attachments where id = ${id}`)) ?? undefined;

/** The keys in the bucket under the project. */
async function keys(): Promise<string[]> {
  const found: string[] = [];
  for await (const { key } of store.list(`${projectId}/`)) found.push(key);
  return found.sort();
}

describe("attachments on S3", () => {
  it("stores the upload in the bucket and serves the same bytes with the download headers", async () => {
    expect(store.driver).toBe("s3");
    const file = aFile(300_000);
    const id = await reserveAndUpload(http, clientKey, file, { original_filename: "heap.bin", content_type: "application/octet-stream" });
    expect(await keys()).toContain(await storageKeyOf(id));
    const link = (await http.get(`/v1/attachments/${id}`, { token: owner.token })).body.download_url.url;
    const got = await download(service.baseUrl, link);
    expect(got.status).toBe(200);
    expect(got.bytes.equals(file.bytes)).toBe(true);
    expect(got.headers.get("content-length")).toBe("300000");
    expect(got.headers.get("content-type")).toBe("application/octet-stream");
    expect(got.headers.get("content-disposition")).toBe('attachment; filename="heap.bin"');
  });

  it("leaves nothing in the bucket for a refused upload", async () => {
    const file = aFile(1_000);
    const id = (await reserve(http, clientKey, reservationFor(file))).body.attachment_id;
    const before = await keys();
    expect((await upload(http, clientKey, id, Buffer.concat([file.bytes, Buffer.from("x")]))).status).toBe(413);
    expect((await upload(http, clientKey, id, file.bytes.subarray(1))).status).toBe(400);
    expect((await upload(http, clientKey, id, aFile(1_000).bytes)).status).toBe(400);
    expect(await keys()).toEqual(before);
    expectStatus(await upload(http, clientKey, id, file.bytes), 200);
    expect(await upload(http, clientKey, id, file.bytes)).toMatchObject({ status: 409, body: { error: "already_uploaded" } });
    expect((await keys()).length).toBe(before.length + 1);
  });

  it("purges deleted attachments' bytes and expired reservations from the bucket and keeps a fresh object", async () => {
    const deleted = await reserveAndUpload(http, clientKey, aFile(500));
    const deletedKey = (await storageKeyOf(deleted))!;
    expectStatus(await http.delete(`/v1/attachments/${deleted}`, { token: owner.token }), 200);
    const expired = (await reserve(http, clientKey, reservationFor(aFile(10)))).body.attachment_id;
    const inProgress = `${projectId}/${expired}/${randomUUID()}`;
    await store.put(inProgress, Readable.from([Buffer.from("partial")]), { maxBytes: 7, declaredBytes: 7, contentType: "application/octet-stream" });

    const deps = await cleanupDeps(service, store);
    try {
      const counts = await runAttachmentCleanup(deps, new Date(Date.now() + 8 * DAY));
      expect(counts).toMatchObject({ deleted_purged: 1, reservations_expired: 1, bytes_freed: 500, orphaned_objects_deleted: 0 });
    } finally {
      await deps.close();
    }
    expect(await store.get(deletedKey)).toBeNull();
    expect(await keys()).toContain(inProgress);
    expect(await storageKeyOf(expired)).toBeUndefined();
  });
});
