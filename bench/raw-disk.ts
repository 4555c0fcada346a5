import { randomBytes } from "node:crypto";
import { accessSync, closeSync, constants, fdatasyncSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { round } from "./stats.ts";

const BLOCK = 8_192;
/** Blocks the test file holds, written in turn: preallocated, so a sync flushes data and not a growing file's metadata. */
const BLOCKS = 16;

export type DiskFigures = { directory: string; same_filesystem_as_postgres: boolean; syncs_per_second: number; seconds: number };

/** Where Postgres keeps its data, or null when the server will not say (no superuser, pg_read_all_settings) or is elsewhere. */
async function dataDirectory(databaseUrl: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ data_directory: string }>("show data_directory");
    return rows[0]?.data_directory ?? null;
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

const writable = (directory: string) => {
  try {
    accessSync(directory, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * A directory this process may write to on the filesystem of Postgres's data directory: its parent
 * or a directory above on the same device (the data directory itself belongs to Postgres and is
 * left alone); the system's temp directory when none is, and then the figure says so.
 */
function besideTheData(dataDir: string | null): { directory: string; same: boolean } {
  let device: number | undefined;
  try {
    if (dataDir) device = statSync(dataDir).dev;
  } catch {
    device = undefined;
  }
  if (dataDir && device !== undefined) {
    for (let directory = dirname(dataDir); ; directory = dirname(directory)) {
      if (statSync(directory).dev !== device) break;
      if (writable(directory)) return { directory, same: true };
      if (directory === dirname(directory)) break;
    }
  }
  const fallback = tmpdir();
  return { directory: fallback, same: device !== undefined && statSync(fallback).dev === device };
}

/**
 * The disk's sync rate where Postgres writes: 8 kB writes, each followed by fdatasync (what a
 * commit costs the WAL under the default wal_sync_method on Linux), for `seconds`, one after
 * another. Synchronous calls on purpose: nothing else runs in this process meanwhile, and the event
 * loop's overhead stays out of the figure.
 */
export async function measureDiskSyncRate(databaseUrl: string, seconds: number): Promise<DiskFigures> {
  const { directory, same } = besideTheData(await dataDirectory(databaseUrl));
  const file = join(directory, `bench-sync-${randomBytes(4).toString("hex")}`);
  const block = randomBytes(BLOCK);
  const fd = openSync(file, "w");
  try {
    for (let index = 0; index < BLOCKS; index += 1) writeSync(fd, block, 0, BLOCK, index * BLOCK);
    fdatasyncSync(fd);
    let syncs = 0;
    const started = performance.now();
    const until = started + seconds * 1000;
    while (performance.now() < until) {
      writeSync(fd, block, 0, BLOCK, (syncs % BLOCKS) * BLOCK);
      fdatasyncSync(fd);
      syncs += 1;
    }
    const elapsed = (performance.now() - started) / 1000;
    return { directory, same_filesystem_as_postgres: same, syncs_per_second: Math.round(syncs / elapsed), seconds: round(elapsed, 2) };
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
}
