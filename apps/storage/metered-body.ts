import { createHash, type Hash } from "node:crypto";
import { Readable } from "node:stream";
import type { StoredObject } from "./attachment-store.ts";
import { ObjectTooLargeError } from "./storage-errors.ts";

/** Counts and hashes a body chunk by chunk, refusing it once it passes `maxBytes`. */
export class BodyMeter {
  #bytes = 0;
  readonly #hash: Hash = createHash("sha256");

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.#bytes;
  }

  /** @throws ObjectTooLargeError when this chunk takes the body past `maxBytes`. */
  add(chunk: Buffer): void {
    this.#bytes += chunk.length;
    if (this.#bytes > this.maxBytes) throw new ObjectTooLargeError(this.maxBytes);
    this.#hash.update(chunk);
  }

  /** Call once, after the last chunk. */
  result(): StoredObject {
    return { bytes: this.#bytes, sha256: this.#hash.digest("hex") };
  }
}

/**
 * The chunks of `body` as Buffers. Stopping early (a break or a throw in the loop) leaves the stream
 * open instead of destroying it: it belongs to the caller, who may still answer on its connection
 * (an HTTP request destroyed here would reset the socket before the 413 goes out).
 */
export async function* chunksOf(body: NodeJS.ReadableStream | Readable): AsyncGenerator<Buffer> {
  const readable = body instanceof Readable ? body : new Readable().wrap(body);
  for await (const chunk of readable.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    if (buffer.length > 0) yield buffer;
  }
}
