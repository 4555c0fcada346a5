import { execFile } from "node:child_process";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort, own, readyBeforeExit, waitUntil, type OwnedProcess } from "./processes.ts";

const run = promisify(execFile);
export const POSTGRES_BIN_DIR = process.env.POSTGRES_BIN_DIR ?? "/usr/lib/postgresql/15/bin";
const OS_USER = "postgres";

/**
 * A PostgreSQL server that one test file owns (initdb into a temp directory, its own port), so it
 * can crash and restart it without touching the machine's server. It runs as the `postgres` OS
 * user, which initdb and postgres require when the tests run as root.
 */
export class PostgresServer {
  #process: OwnedProcess | undefined;

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly uid: number,
    private readonly gid: number,
    /** Extra `-c` settings of this server. */
    private readonly settings: string[] = [],
  ) {}

  static async start(): Promise<PostgresServer> {
    const dir = await mkdtemp(join(tmpdir(), "pg-fault-"));
    const uid = Number((await run("id", ["-u", OS_USER])).stdout.trim());
    const gid = Number((await run("id", ["-g", OS_USER])).stdout.trim());
    await chown(dir, uid, gid);
    await run("runuser", ["-u", OS_USER, "--", join(POSTGRES_BIN_DIR, "initdb"), "-D", join(dir, "data"), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
    const server = new PostgresServer(dir, await freePort(), uid, gid);
    await server.#spawn();
    return server;
  }

  /**
   * A hot standby of `primary`, streaming its WAL: `pg_basebackup -R` copies the primary's data
   * directory and configures the connection back to it. `applyDelayMs` holds every commit back
   * that long on the standby (`recovery_min_apply_delay`), so a test can tell reads on it from
   * reads on the primary.
   */
  static async standbyOf(primary: PostgresServer, options: { applyDelayMs?: number } = {}): Promise<PostgresServer> {
    const dir = await mkdtemp(join(tmpdir(), "pg-standby-"));
    const uid = Number((await run("id", ["-u", OS_USER])).stdout.trim());
    const gid = Number((await run("id", ["-g", OS_USER])).stdout.trim());
    await chown(dir, uid, gid);
    await run("runuser", ["-u", OS_USER, "--", join(POSTGRES_BIN_DIR, "pg_basebackup"), "-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", join(dir, "data"), "-R", "-X", "stream", "--no-sync"]);
    const server = new PostgresServer(dir, await freePort(), uid, gid, options.applyDelayMs === undefined ? [] : ["-c", `recovery_min_apply_delay=${options.applyDelayMs}ms`]);
    await server.#spawn();
    return server;
  }

  /** The URL of database `name` on this server. */
  url(name = "postgres"): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${name}`;
  }

  output(): string {
    return this.#process?.output() ?? "";
  }

  /** How many client connections the running server has accepted (log_connections is on). */
  connectionsAccepted(): number {
    return this.output().split("connection authorized").length - 1;
  }

  /**
   * Stops the server. "immediate" (SIGQUIT) is a crash: no shutdown checkpoint, the next start
   * runs crash recovery from the WAL. "fast" (SIGINT) disconnects clients and shuts down cleanly.
   */
  async stop(mode: "immediate" | "fast" = "immediate"): Promise<void> {
    const current = this.#process;
    this.#process = undefined;
    await current?.stop(mode === "immediate" ? "SIGQUIT" : "SIGINT", 15_000);
  }

  async restart(): Promise<void> {
    if (this.#process) throw new Error("postgres is still running");
    await this.#spawn();
  }

  async dispose(): Promise<void> {
    await this.stop("immediate").catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }

  async #spawn(): Promise<void> {
    // Spawned with the uid directly (not through runuser, which forks) so the pid is the postmaster's.
    const child = own(
      join(POSTGRES_BIN_DIR, "postgres"),
      ["-D", join(this.dir, "data"), "-p", String(this.port), "-k", this.dir, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=100", "-c", "log_connections=on", ...this.settings],
      { uid: this.uid, gid: this.gid, cwd: this.dir },
    );
    this.#process = child;
    await readyBeforeExit(
      child,
      "postgres",
      waitUntil(
        "postgres to accept connections",
        async () => {
          const client = new pg.Client({ connectionString: this.url() });
          client.on("error", () => undefined);
          try {
            await client.connect();
            await client.query("select 1");
            return true;
          } finally {
            await client.end().catch(() => undefined);
          }
        },
        30_000,
        100,
      ),
    );
  }
}
