// Completes `npm run build`: tsc emits the JavaScript into dist/, and this mirrors the SQL files
// (migrations, the projection runtime's schema) beside it, since the code finds them relative to
// its own module. SQL files in dist/ are removed first, so a migration deleted from the source
// can never be applied from a stale copy.
import { cp, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

const SOURCE_DIRS = ["apps", "domain", "projections", "streams"];

async function sqlFiles(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith(".sql")).map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

for (const stale of await sqlFiles("dist")) await rm(stale);
for (const dir of SOURCE_DIRS) {
  for (const file of await sqlFiles(dir)) await cp(file, join("dist", file));
}
