import type { Readable } from "node:stream";
import type { AttachmentsConfig } from "../config.ts";
import { FilesystemStore } from "./filesystem-store.ts";
import { S3Store } from "./s3-store.ts";

export { InvalidObjectKeyError, ObjectTooLargeError } from "./storage-errors.ts";

export type StoredObject = { bytes: number; sha256: string };

export type PutOptions = { maxBytes: number; declaredBytes: number; contentType: string };

/**
 * Where attachment bytes live. Keys look like `<project_id>/<attachment_id>/<upload_id>`: segments
 * of `[A-Za-z0-9_-]` separated by `/`; every method throws InvalidObjectKeyError for any other key.
 * A key is written once (it carries the upload id), so a failed put never has to restore an
 * earlier object under the same key.
 */
export interface AttachmentStore {
  readonly driver: "filesystem" | "s3";
  /** Creates the bucket / directory when missing. */
  ensure(): Promise<void>;
  /**
   * Streams `body` into `key` while counting bytes and hashing it (sha256, 64 lowercase hex),
   * never holding the whole body in memory. Stops reading (without destroying `body`) and rejects
   * with ObjectTooLargeError as soon as more than `maxBytes` arrived; nothing is stored then.
   * The object is stored only when the body is exactly `declaredBytes` long. Otherwise this
   * resolves with the real count and nothing is stored, so the caller answers 400 "length
   * mismatch" on `bytes !== declaredBytes`. Comparing the hash is the caller's: on a mismatch
   * it deletes the key.
   */
  put(key: string, body: NodeJS.ReadableStream | Readable, options: PutOptions): Promise<StoredObject>;
  /** A readable stream of the object and its size; null when the key does not exist. */
  get(key: string): Promise<{ body: Readable; bytes: number } | null>;
  /** Removes the object; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every stored key (with its last-modified time) under `prefix`, paged internally, in no particular order. */
  list(prefix?: string): AsyncIterable<{ key: string; modifiedAt: Date }>;
  /** Releases connections; idempotent. */
  close(): Promise<void>;
}

/** The store the configuration names (S3 when `S3_BUCKET` is set), its bucket or directory created. */
export async function openAttachmentStore(config: AttachmentsConfig): Promise<AttachmentStore> {
  const store = config.s3 === null ? new FilesystemStore(config.dir) : new S3Store(config.s3);
  try {
    await store.ensure();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
