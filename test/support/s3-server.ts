import { createHash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import S3rver from "s3rver";
import type { S3Config } from "../../apps/config.ts";

export type S3Server = {
  /** `http://127.0.0.1:<port>`, for S3_ENDPOINT. */
  endpoint: string;
  /** Settings of a client of this server for `bucket` (path style, throwaway credentials). */
  config: (bucket: string) => S3Config;
  /** Closes the server and its open connections, and deletes its directory; idempotent. */
  stop: () => Promise<void>;
};

/**
 * An S3-protocol server (s3rver) in this process, on a free port, storing into a fresh temporary
 * directory: a test file owns it alone, so files run in parallel. Any access key signs requests.
 */
export async function startS3Server(): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), "s3rver-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, directory, silent: true });
  commitWholeBodiesOnly(server);
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | undefined;
  return {
    endpoint,
    config: (bucket) => ({
      bucket,
      endpoint,
      region: "us-east-1",
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
      forcePathStyle: true,
    }),
    stop: () => {
      stopped ??= (async () => {
        const closed = server.close();
        // Clients keep idle sockets alive; close() alone would wait for them.
        server.httpServer?.closeAllConnections();
        await closed;
        await rm(directory, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

/**
 * s3rver writes a PutObject body straight to the object's file, which it serves as soon as the
 * file exists, and keeps what arrived before a client aborted. S3 shows an object only once its
 * whole body arrived and discards one cut short; the tests check the drivers against that, so a
 * plain PutObject here goes to a temporary file renamed into place only when the request completed.
 */
function commitWholeBodiesOnly(server: S3rver): void {
  const store = server.store;
  const putObject = store.putObject.bind(store);
  store.putObject = async (object) => {
    const request = object.content;
    if (!(request instanceof IncomingMessage)) return putObject(object);
    const target = store.getResourcePath(object.bucket, object.key, "object");
    const partial = `${target}.${randomUUID()}.partial`;
    await mkdir(dirname(target), { recursive: true });
    const md5 = createHash("md5");
    let size = 0;
    const meter = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        md5.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(request, meter, createWriteStream(partial));
      if (!request.complete) throw new Error("the request body was cut short");
      const digest = md5.digest("hex");
      await store.putMetadata(object.bucket, object.key, object.metadata, digest);
      await rename(partial, target);
      return { size, md5: digest };
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  };
}
