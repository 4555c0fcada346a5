// Part of `npm run build`: bundles apps/dashboard with Vite into dist/dashboard, unless nothing it
// is built from changed since the last bundle. `npm start` builds before every start, and the
// TypeScript half of the build is incremental; this keeps the dashboard half from adding a full
// bundle to each start.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { build } from "vite";

const SOURCES = ["apps/dashboard", "package-lock.json"];
const STAMP = "dist/.dashboard-sources";
const CONFIG = "apps/dashboard/vite.config.ts";
const OUT = "dist/dashboard";

/** A digest of every source file's path and content: a change, an addition or a removal changes it. */
async function sourcesDigest() {
  const hash = createHash("sha256");
  for (const source of SOURCES) {
    const entries = (await readdir(source, { recursive: true, withFileTypes: true }).catch(() => null)) ?? [];
    const files = entries.length === 0 ? [source] : entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
    for (const file of files.sort()) hash.update(file).update("\0").update(await readFile(file)).update("\0");
  }
  return hash.digest("hex");
}

/**
 * Bundles into a folder of its own, then swaps it in: test files build in parallel processes, and
 * a service starting meanwhile must find a whole bundle, never one half emptied by another build.
 */
async function bundle() {
  const fresh = `${OUT}.new-${process.pid}`;
  const old = `${OUT}.old-${process.pid}`;
  await build({ configFile: CONFIG, logLevel: "warn", build: { outDir: resolve(fresh) } });
  await rename(OUT, old).catch(() => undefined);
  // Another build swapped its bundle in between our two renames: built from the same sources, it will do.
  await rename(fresh, OUT).catch(() => rm(fresh, { recursive: true, force: true }));
  await rm(old, { recursive: true, force: true });
}

const digest = await sourcesDigest();
const previous = await readFile(STAMP, "utf8").catch(() => "");
if (previous === digest && existsSync(join(OUT, "index.html"))) process.exit(0);
await bundle();
await writeFile(STAMP, digest);
