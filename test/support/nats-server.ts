import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { own, readyBeforeExit, waitUntil, type OwnedProcess } from "./processes.ts";

export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? "/usr/sbin/nats-server";

/**
 * A nats-server with JetStream that one test file owns, so it can stop and restart it without
 * touching the shared server. The first start picks a free port (`-p -1`) and reads it from the
 * ports file; restarts reuse that port and the same store directory, so streams, KV buckets and
 * clients' reconnect URLs survive the restart.
 */
export class NatsServer {
  #process: OwnedProcess | undefined;
  #port: number | undefined;
  #starts = 0;

  private constructor(readonly dir: string) {}

  static async start(): Promise<NatsServer> {
    const server = new NatsServer(await mkdtemp(join(tmpdir(), "nats-fault-")));
    await server.#spawn();
    return server;
  }

  get port(): number {
    if (this.#port === undefined) throw new Error("nats-server has not started");
    return this.#port;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#process !== undefined;
  }

  get storeDir(): string {
    return join(this.dir, "store");
  }

  /** Log output of the current (or last) process, for failure messages. */
  output(): string {
    return this.#process?.output() ?? "";
  }

  /** Stops the server: SIGTERM shuts down cleanly, SIGKILL is a crash. Resolves once it exited. */
  async stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
    const current = this.#process;
    this.#process = undefined;
    await current?.stop(signal, 10_000);
  }

  /** Starts it again on the same port with the same store directory. */
  async restart(): Promise<void> {
    if (this.#process) throw new Error("nats-server is still running");
    await this.#spawn();
  }

  /** Stops the server and deletes its store and ports files. */
  async dispose(): Promise<void> {
    await this.stop("SIGKILL").catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }

  async #spawn(): Promise<void> {
    this.#starts += 1;
    const port = this.#port === undefined ? "-1" : String(this.#port);
    const child = own(NATS_SERVER_BIN, [
      "-js",
      "-a",
      "127.0.0.1",
      "-p",
      port,
      "-sd",
      this.storeDir,
      "--ports_file_dir",
      this.dir,
      "--server_name",
      `fault_${this.#starts}`,
    ]);
    this.#process = child;
    // The ports file is written once the client listener is up, after JetStream recovered its streams.
    const ready = waitUntil(
      "the nats-server ports file",
      async () => {
        const name = (await readdir(this.dir)).find((file) => file.endsWith(`_${child.pid}.ports`));
        if (!name) return undefined;
        const ports = JSON.parse(await readFile(join(this.dir, name), "utf8")) as { nats?: string[] };
        const url = ports.nats?.[0];
        return url ? Number(new URL(url).port) : undefined;
      },
      15_000,
      25,
    );
    this.#port = await readyBeforeExit(child, "nats-server", ready);
  }
}
