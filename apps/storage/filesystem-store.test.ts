import { mkdtemp, readdir, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openAttachmentStore, ObjectTooLargeError } from "./attachment-store.ts";
import { FilesystemStore } from "./filesystem-store.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "attachments-fs-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const options = (bytes: number) => ({ maxBytes: bytes, declaredBytes: bytes, contentType: "text/plain" });

/** Every file and directory under `root`, as relative paths. */
async function tree(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true })).sort();
}

describe("the filesystem attachment store", () => {
  it("creates its directory at open, resolved against the working directory", async () => {
    const store = await openAttachmentStore({ dir: join(dir, "a", "b"), s3: null });
    expect(store.driver).toBe("filesystem");
    expect(await readdir(join(dir, "a", "b"))).toEqual([]);
    expect(new FilesystemStore(".data/attachments").root).toBe(resolve(".data/attachments"));
  });

  it("keeps a body in a temporary file until it is whole, then leaves only the object", async () => {
    const store = new FilesystemStore(dir);
    const body = new PassThrough();
    const putting = store.put("p/a/u", body, options(6));
    body.write("abc");
    await new Promise((done) => setTimeout(done, 50));
    const during = await tree(dir);
    expect(during).toEqual(["p", "p/a", expect.stringMatching(/^p\/a\/\.u\.[0-9a-f]{16}\.part$/)]);
    body.end("def");
    await putting;
    expect(await tree(dir)).toEqual(["p", "p/a", "p/a/u"]);
  });

  it("leaves neither a temporary file nor new directories behind a refused body", async () => {
    const store = new FilesystemStore(dir);
    await expect(store.put("p/a/u", Readable.from([Buffer.alloc(10)]), options(5))).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect((await store.put("p/b/u", Readable.from([Buffer.alloc(3)]), options(5))).bytes).toBe(3);
    expect(await tree(dir)).toEqual([]);
  });

  it("removes the directories a delete empties, and no others", async () => {
    const store = new FilesystemStore(dir);
    await store.put("p/a/1", Readable.from([Buffer.from("x")]), options(1));
    await store.put("p/b/1", Readable.from([Buffer.from("x")]), options(1));
    await store.delete("p/a/1");
    expect(await tree(dir)).toEqual(["p", "p/b", "p/b/1"]);
    await store.delete("p/b/1");
    expect(await tree(dir)).toEqual([]);
    await store.delete("p/b/1");
  });

  it("lists only what a put could have written", async () => {
    const store = new FilesystemStore(dir);
    await store.put("p/a/1", Readable.from([Buffer.from("x")]), options(1));
    await mkdir(join(dir, "p", "a"), { recursive: true });
    await writeFile(join(dir, "p", "a", ".1.0123456789abcdef.part"), "half");
    await writeFile(join(dir, "p", "notes.txt"), "not ours");
    const keys: string[] = [];
    for await (const { key } of store.list()) keys.push(key);
    expect(keys).toEqual(["p/a/1"]);
    expect(await store.get("p/notes")).toBeNull();
  });
});
