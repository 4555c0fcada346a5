import { randomBytes } from "node:crypto";
import { mkdir, open, opendir, rename, rmdir, stat, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { Readable } from "node:stream";
import type { AttachmentStore, PutOptions, StoredObject } from "./attachment-store.ts";
import { BodyMeter, chunksOf } from "./metered-body.ts";
import { assertKeyPrefix, assertObjectKey, isKeySegment } from "./object-key.ts";

/**
 * Objects as files under one directory, a key's segments as its path. A put writes a temporary
 * file beside the target (its name starts with `.`, which no key segment can) and renames it into
 * place once the whole body arrived, so a reader never sees a partial object. The filesystem
 * cannot hold both `a/b` and `a/b/c`; callers keep every key at the same depth.
 */
export class FilesystemStore implements AttachmentStore {
  readonly driver = "filesystem";
  readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  async ensure(): Promise<void> {
    await mkdir(this.root, { recursive: true });
  }

  async put(key: string, body: NodeJS.ReadableStream | Readable, options: PutOptions): Promise<StoredObject> {
    const target = this.#pathOf(key);
    const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(8).toString("hex")}.part`);
    const handle = await openInFreshDirectory(temporary);
    let renamed = false;
    try {
      const meter = new BodyMeter(options.maxBytes);
      for await (const chunk of chunksOf(body)) {
        meter.add(chunk);
        await writeAll(handle, chunk);
      }
      const result = meter.result();
      if (result.bytes === options.declaredBytes) {
        // The answer tells the client its upload is stored: it must survive a crash right after.
        await handle.datasync();
        await handle.close();
        await rename(temporary, target);
        renamed = true;
      }
      return result;
    } finally {
      if (!renamed) {
        await handle.close().catch(() => undefined);
        await unlink(temporary).catch(() => undefined);
        await this.#removeEmptyParents(temporary);
      }
    }
  }

  async get(key: string): Promise<{ body: Readable; bytes: number } | null> {
    let handle: FileHandle;
    try {
      handle = await open(this.#pathOf(key), "r");
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    // Size from the open handle, not the path: a delete between the two cannot mismatch them.
    const stats = await handle.stat();
    if (!stats.isFile()) {
      await handle.close();
      return null;
    }
    return { body: handle.createReadStream(), bytes: stats.size };
  }

  async delete(key: string): Promise<void> {
    const path = this.#pathOf(key);
    try {
      await unlink(path);
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === "EISDIR") return;
      throw error;
    }
    await this.#removeEmptyParents(path);
  }

  async *list(prefix = ""): AsyncIterable<{ key: string; modifiedAt: Date }> {
    assertKeyPrefix(prefix);
    // Start in the deepest directory the prefix names whole, then filter by the rest of it.
    const complete = prefix.slice(0, prefix.lastIndexOf("/") + 1);
    for await (const key of walk(join(this.root, complete), complete)) {
      if (!key.startsWith(prefix)) continue;
      const modifiedAt = await stat(join(this.root, key)).then(
        (stats) => stats.mtime,
        (error: unknown) => {
          if (isMissing(error)) return undefined;
          throw error;
        },
      );
      if (modifiedAt !== undefined) yield { key, modifiedAt };
    }
  }

  async close(): Promise<void> {}

  /** Best effort: a concurrent put into one of these directories makes rmdir fail, which is fine. */
  async #removeEmptyParents(path: string): Promise<void> {
    for (let dir = dirname(path); dir !== this.root && dir.startsWith(this.root); dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        return;
      }
    }
  }

  #pathOf(key: string): string {
    assertObjectKey(key);
    return join(this.root, ...key.split("/"));
  }
}

/** Keys of the files under `dir`, depth first, one directory entry at a time (no whole listing in memory). */
async function* walk(dir: string, keyPrefix: string): AsyncGenerator<string> {
  let entries;
  try {
    entries = await opendir(dir);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  for await (const entry of entries) {
    if (!isKeySegment(entry.name)) continue;
    if (entry.isDirectory()) yield* walk(join(dir, entry.name), `${keyPrefix}${entry.name}/`);
    else if (entry.isFile()) yield `${keyPrefix}${entry.name}`;
  }
}

/** Opens a new file, creating its directories; retried because a concurrent delete may remove an emptied directory in between. */
async function openInFreshDirectory(path: string): Promise<FileHandle> {
  for (let attempt = 1; ; attempt += 1) {
    await mkdir(dirname(path), { recursive: true });
    try {
      return await open(path, "wx");
    } catch (error) {
      if (attempt >= 5 || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}

async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset);
    offset += bytesWritten;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}
