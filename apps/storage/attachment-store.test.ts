import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startS3Server, type S3Server } from "../../test/support/s3-server.ts";
import { InvalidObjectKeyError, ObjectTooLargeError, type AttachmentStore } from "./attachment-store.ts";
import { FilesystemStore } from "./filesystem-store.ts";
import { S3Store } from "./s3-store.ts";

const MiB = 1024 * 1024;

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.stop();
});

type Driver = { name: string; open: () => Promise<{ store: AttachmentStore; dispose: () => Promise<void> }> };

const drivers: Driver[] = [
  {
    name: "filesystem",
    open: async () => {
      const dir = await mkdtemp(join(tmpdir(), "attachments-"));
      const store = new FilesystemStore(join(dir, "store"));
      return { store, dispose: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: "s3",
    open: async () => {
      const store = new S3Store(s3.config(`attachments-${randomUUID().slice(0, 8)}`));
      return { store, dispose: () => store.close() };
    },
  },
];

/** A body produced on demand, 64 KiB at a time, that tells how much of it was read. */
function generatedBody(bytes: number): { body: Readable; sha256: string; produced: () => number } {
  const seed = randomBytes(64 * 1024);
  const hash = createHash("sha256");
  for (let offset = 0; offset < bytes; offset += seed.length) hash.update(seed.subarray(0, Math.min(seed.length, bytes - offset)));
  let produced = 0;
  const body = new Readable({
    highWaterMark: seed.length,
    read() {
      if (produced >= bytes) return void this.push(null);
      const chunk = seed.subarray(0, Math.min(seed.length, bytes - produced));
      produced += chunk.length;
      this.push(chunk);
    },
  });
  return { body, sha256: hash.digest("hex"), produced: () => produced };
}

async function digest(body: Readable): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest("hex") };
}

async function keysOf(store: AttachmentStore, prefix?: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const { key } of store.list(prefix)) keys.push(key);
  return keys.sort();
}

function freshKey(): string {
  return `${randomUUID()}/${randomUUID()}/${randomUUID().slice(0, 8)}`;
}

describe.each(drivers)("the $name attachment store", ({ name, open }) => {
  let store: AttachmentStore;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ store, dispose } = await open());
    await store.ensure();
    await store.ensure();
  });
  afterAll(async () => {
    await dispose?.();
  });

  it("names its driver", () => {
    expect(store.driver).toBe(name);
  });

  it("streams a multi-megabyte body in and out with its byte count and sha256", async () => {
    const key = freshKey();
    const { body, sha256 } = generatedBody(6 * MiB + 123);
    const stored = await store.put(key, body, { maxBytes: 6 * MiB + 123, declaredBytes: 6 * MiB + 123, contentType: "application/zip" });
    expect(stored).toEqual({ bytes: 6 * MiB + 123, sha256 });
    expect(stored.sha256).toMatch(/^[0-9a-f]{64}$/);

    const object = await store.get(key);
    expect(object?.bytes).toBe(6 * MiB + 123);
    expect(await digest(object!.body)).toEqual({ bytes: 6 * MiB + 123, sha256 });
  });

  it("stores an empty body", async () => {
    const key = freshKey();
    const stored = await store.put(key, Readable.from([]), { maxBytes: 10, declaredBytes: 0, contentType: "text/plain" });
    expect(stored).toEqual({ bytes: 0, sha256: createHash("sha256").digest("hex") });
    const object = await store.get(key);
    expect(object?.bytes).toBe(0);
    expect((await digest(object!.body)).bytes).toBe(0);
  });

  it("stops reading a body past maxBytes, leaves it open and stores nothing", async () => {
    const key = freshKey();
    const { body, produced } = generatedBody(8 * MiB);
    await expect(store.put(key, body, { maxBytes: MiB, declaredBytes: MiB, contentType: "application/octet-stream" })).rejects.toBeInstanceOf(
      ObjectTooLargeError,
    );
    expect(produced()).toBeLessThan(3 * MiB);
    expect(body.destroyed).toBe(false);
    expect(await store.get(key)).toBeNull();
    expect(await keysOf(store, key.split("/")[0])).toEqual([]);
  });

  it("reports a body shorter than declared and stores nothing", async () => {
    const key = freshKey();
    const { body, sha256 } = generatedBody(MiB + 5);
    const stored = await store.put(key, body, { maxBytes: 2 * MiB, declaredBytes: 2 * MiB, contentType: "image/png" });
    expect(stored).toEqual({ bytes: MiB + 5, sha256 });
    expect(await store.get(key)).toBeNull();
  });

  it("reports a body longer than declared but within maxBytes and stores nothing", async () => {
    const key = freshKey();
    const { body, sha256 } = generatedBody(300_000);
    const stored = await store.put(key, body, { maxBytes: MiB, declaredBytes: 100_000, contentType: "image/png" });
    expect(stored).toEqual({ bytes: 300_000, sha256 });
    expect(await store.get(key)).toBeNull();
  });

  it("never shows a body still arriving", async () => {
    const key = freshKey();
    const body = new PassThrough();
    const putting = store.put(key, body, { maxBytes: 1000, declaredBytes: 1000, contentType: "text/plain" });
    body.write(Buffer.alloc(600, 1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await store.get(key)).toBeNull();
    expect(await keysOf(store, key.split("/")[0])).toEqual([]);
    body.end(Buffer.alloc(400, 2));
    expect((await putting).bytes).toBe(1000);
    expect((await store.get(key))?.bytes).toBe(1000);
  });

  it("answers null for a missing key", async () => {
    expect(await store.get(freshKey())).toBeNull();
  });

  it("deletes idempotently", async () => {
    const key = freshKey();
    await store.put(key, Readable.from([Buffer.from("hello")]), { maxBytes: 5, declaredBytes: 5, contentType: "text/plain" });
    await store.delete(key);
    await store.delete(key);
    await store.delete(freshKey());
    expect(await store.get(key)).toBeNull();
  });

  it("lists stored keys under a prefix, not deleted ones", async () => {
    const project = randomUUID();
    const keys = [`${project}/a/1`, `${project}/a/2`, `${project}/b/1`];
    const before = Date.now() - 60_000;
    for (const key of keys) {
      await store.put(key, Readable.from([Buffer.from(key)]), { maxBytes: 100, declaredBytes: key.length, contentType: "text/plain" });
    }
    await store.delete(`${project}/a/2`);

    expect(await keysOf(store, project)).toEqual([`${project}/a/1`, `${project}/b/1`]);
    expect(await keysOf(store, `${project}/a/`)).toEqual([`${project}/a/1`]);
    expect(await keysOf(store, `${project}/b`)).toEqual([`${project}/b/1`]);
    expect(await keysOf(store)).toEqual(expect.arrayContaining([`${project}/a/1`, `${project}/b/1`]));
    for await (const { key, modifiedAt } of store.list(project)) {
      expect(key.startsWith(project)).toBe(true);
      expect(modifiedAt.getTime()).toBeGreaterThan(before);
    }
  });

  it("refuses keys that could leave their place", async () => {
    for (const key of ["../x", "a/../../x", "/etc/passwd", "a//b", "a/./b", "a/b/", "", "a b", "a\\b", "a/b.c"]) {
      await expect(store.put(key, Readable.from([]), { maxBytes: 0, declaredBytes: 0, contentType: "text/plain" })).rejects.toBeInstanceOf(
        InvalidObjectKeyError,
      );
      await expect(store.get(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(store.delete(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
    }
    await expect(keysOf(store, "../")).rejects.toBeInstanceOf(InvalidObjectKeyError);
  });
});
