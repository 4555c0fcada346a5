import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
  paginateListObjectsV2,
  type BucketLocationConstraint,
} from "@aws-sdk/client-s3";
import { once } from "node:events";
import { PassThrough, Readable } from "node:stream";
import type { S3Config } from "../config.ts";
import type { AttachmentStore, PutOptions, StoredObject } from "./attachment-store.ts";
import { BodyMeter, chunksOf } from "./metered-body.ts";
import { assertKeyPrefix, assertObjectKey, isObjectKey } from "./object-key.ts";

/**
 * Objects in one bucket of any S3-compatible store. A put is a single PutObject whose body is
 * streamed with the declared length, and the last chunk read is held back until the source has
 * ended: the server never receives a complete body before its length and the byte limit are
 * known to be right, so aborting the request leaves nothing stored (a delete follows, for servers
 * that keep a truncated body).
 */
export class S3Store implements AttachmentStore {
  readonly driver = "s3";
  readonly bucket: string;
  readonly #region: string;
  readonly #client: S3Client;

  constructor(config: S3Config) {
    this.bucket = config.bucket;
    this.#region = config.region;
    this.#client = new S3Client({
      region: config.region,
      ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
      ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
      forcePathStyle: config.forcePathStyle,
      // An aborted streaming put is how a refused body ends here, not a fault: the SDK would warn
      // on the console for each one.
      logger: QUIET,
      // Trailing checksums re-encode a streamed body (aws-chunked), which many S3-compatible
      // stores refuse; the sha256 computed here already guards the bytes.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async ensure(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (error) {
      if (statusOf(error) !== 404) throw new Error(`S3 bucket ${this.bucket} is not reachable: ${messageOf(error)}`, { cause: error });
    }
    try {
      await this.#client.send(
        new CreateBucketCommand({
          Bucket: this.bucket,
          // Outside us-east-1, AWS refuses a CreateBucket that does not name its region.
          ...(this.#region === "us-east-1"
            ? {}
            : { CreateBucketConfiguration: { LocationConstraint: this.#region as BucketLocationConstraint } }),
        }),
      );
    } catch (error) {
      if (nameOf(error) === "BucketAlreadyOwnedByYou") return;
      throw new Error(`S3 bucket ${this.bucket} could not be created: ${messageOf(error)}`, { cause: error });
    }
  }

  async put(key: string, body: NodeJS.ReadableStream | Readable, options: PutOptions): Promise<StoredObject> {
    assertObjectKey(key);
    const meter = new BodyMeter(options.maxBytes);
    const upload = new PassThrough();
    const abort = new AbortController();
    let failure: { error: unknown } | undefined;
    // Read through a call: the request's callback sets it while this function awaits.
    const throwIfFailed = (): void => {
      if (failure) throw failure.error;
    };
    const sent = this.#client
      .send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: upload,
          ContentLength: options.declaredBytes,
          ContentType: options.contentType,
        }),
        { abortSignal: abort.signal },
      )
      .then(
        () => true,
        (error: unknown) => {
          if (!abort.signal.aborted) failure = { error };
          abort.abort();
          return false;
        },
      );
    let stored = false;
    try {
      let held: Buffer | undefined;
      for await (const chunk of chunksOf(body)) {
        throwIfFailed();
        meter.add(chunk);
        // Once refused for its length the body is still read, up to maxBytes, to report its size.
        if (abort.signal.aborted) continue;
        if (meter.bytes > options.declaredBytes) {
          abort.abort();
          continue;
        }
        if (held && !upload.write(held)) await drained(upload, abort.signal);
        held = chunk;
      }
      throwIfFailed();
      const result = meter.result();
      if (abort.signal.aborted || result.bytes !== options.declaredBytes) return result;
      if (held) upload.end(held);
      else upload.end();
      stored = await sent;
      throwIfFailed();
      if (!stored) throw new Error(`S3 PutObject of ${key} was aborted`);
      return result;
    } finally {
      if (!stored) {
        const refusedHere = failure === undefined;
        abort.abort();
        upload.destroy();
        await sent;
        // S3 discards a body cut short, but lenient S3-compatible servers (s3rver among them) keep
        // what arrived before the abort.
        if (refusedHere) await this.delete(key).catch(() => undefined);
      }
    }
  }

  async get(key: string): Promise<{ body: Readable; bytes: number } | null> {
    assertObjectKey(key);
    try {
      const object = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!(object.Body instanceof Readable)) throw new Error(`S3 GetObject of ${key} returned no stream`);
      return { body: object.Body, bytes: object.ContentLength ?? 0 };
    } catch (error) {
      if (isMissingKey(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertObjectKey(key);
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (!isMissingKey(error)) throw error;
    }
  }

  async *list(prefix = ""): AsyncIterable<{ key: string; modifiedAt: Date }> {
    assertKeyPrefix(prefix);
    const pages = paginateListObjectsV2({ client: this.#client }, { Bucket: this.bucket, ...(prefix ? { Prefix: prefix } : {}) });
    for await (const page of pages) {
      for (const object of page.Contents ?? []) {
        // Objects of another writer sharing the bucket are never offered to the cleanup.
        if (object.Key === undefined || !isObjectKey(object.Key)) continue;
        // A missing date reads as "just now": the cleanup leaves young objects alone, never the reverse.
        yield { key: object.Key, modifiedAt: object.LastModified ?? new Date() };
      }
    }
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}

const QUIET = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** Waits until `stream` wants more; returns early when the request is aborted (the caller checks why). */
async function drained(stream: PassThrough, signal: AbortSignal): Promise<void> {
  await once(stream, "drain", { signal }).catch(() => undefined);
}

/** A 404 about the key; a missing bucket is a misconfiguration, never "no such object". */
function isMissingKey(error: unknown): boolean {
  return nameOf(error) === "NoSuchKey" || (statusOf(error) === 404 && nameOf(error) !== "NoSuchBucket");
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function nameOf(error: unknown): string | undefined {
  return (error as { name?: string } | null)?.name;
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message === "" || message === "UnknownError" ? `${nameOf(error) ?? "error"} (HTTP ${statusOf(error) ?? "?"})` : message;
}
