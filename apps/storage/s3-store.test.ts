import { HeadBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startS3Server, type S3Server } from "../../test/support/s3-server.ts";
import { openAttachmentStore } from "./attachment-store.ts";
import { S3Store } from "./s3-store.ts";

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.stop();
});

const freshBucket = () => `attachments-${randomUUID().slice(0, 8)}`;

async function bucketExists(bucket: string): Promise<boolean> {
  const client = new S3Client(s3.config(bucket));
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw error;
  } finally {
    client.destroy();
  }
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as { port: number };
  await new Promise((closed) => server.close(closed));
  return port;
}

describe("the S3 attachment store", () => {
  it("creates its bucket at open when missing, and opens on an existing one", async () => {
    const bucket = freshBucket();
    expect(await bucketExists(bucket)).toBe(false);
    const store = await openAttachmentStore({ dir: "unused", s3: s3.config(bucket) });
    expect(store.driver).toBe("s3");
    expect(await bucketExists(bucket)).toBe(true);
    await store.put("p/a/u", Readable.from([Buffer.from("kept")]), { maxBytes: 4, declaredBytes: 4, contentType: "text/plain" });
    await store.close();

    const again = await openAttachmentStore({ dir: "unused", s3: s3.config(bucket) });
    expect((await again.get("p/a/u"))?.bytes).toBe(4);
    await again.close();
    await again.close();
  });

  it("rejects a put into a missing bucket with the server's error instead of waiting", async () => {
    const store = new S3Store(s3.config(freshBucket()));
    const body = Readable.from((function* () {
      for (let i = 0; i < 64; i += 1) yield Buffer.alloc(64 * 1024, i);
    })());
    const size = 4 * 1024 * 1024;
    await expect(store.put("p/a/u", body, { maxBytes: size, declaredBytes: size, contentType: "text/plain" })).rejects.toMatchObject({
      name: "NoSuchBucket",
    });
    await store.close();
  });

  it("treats a missing bucket as an error, not as a missing key", async () => {
    const store = new S3Store(s3.config(freshBucket()));
    await expect(store.get("p/a/u")).rejects.toMatchObject({ name: "NoSuchBucket" });
    await expect(store.delete("p/a/u")).rejects.toMatchObject({ name: "NoSuchBucket" });
    await store.close();
  });

  it("names the bucket, never the secret, when the store cannot be reached", async () => {
    const secret = `secret-${randomUUID()}`;
    const open = openAttachmentStore({
      dir: "unused",
      s3: {
        ...s3.config("unreachable"),
        endpoint: `http://127.0.0.1:${await closedPort()}`,
        credentials: { accessKeyId: "id", secretAccessKey: secret },
      },
    });
    const error = (await open.catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(/S3 bucket unreachable is not reachable/);
    expect(JSON.stringify({ message: error.message, stack: error.stack, cause: String(error.cause) })).not.toContain(secret);
  });
});
