// Completes `npm run build`: tsc emits the JavaScript into dist/, and this mirrors the SQL files
// (migrations, the projection runtime's schema) beside it, since the code finds them relative to
// its own module. A SQL file in dist/ whose source is gone is removed, so a migration deleted from
// the source can never be applied from a stale copy. The others are copied only when they differ,
// and never removed first: a compiled service starting meanwhile (tests build while other tests
// run) must find every migration in place.
import { cp, readdir, readFile, rm } from "node:fs/promises";
import { join, relative } from "node:path";

const SOURCE_DIRS = ["apps", "domain", "projections", "streams"];

async function sqlFiles(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith(".sql")).map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

const sources = new Set();
for (const dir of SOURCE_DIRS) for (const file of await sqlFiles(dir)) sources.add(file);

for (const copy of await sqlFiles("dist")) if (!sources.has(relative("dist", copy))) await rm(copy);
for (const file of sources) {
  const target = join("dist", file);
  const [source, existing] = await Promise.all([readFile(file), readFile(target).catch(() => undefined)]);
  if (!existing?.equals(source)) await cp(file, target);
}
