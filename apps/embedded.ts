import { fork, type ChildProcess } from "node:child_process";
import { getPriority, setPriority } from "node:os";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import type { Config } from "./config.ts";
import { closeOnSignals, startService } from "./runtime.ts";

// `npm start` runs the compiled JavaScript in dist/; tests and the CLI run the TypeScript source
// under tsx. The child runs the same way as its parent.
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const PROJECTOR_ENTRY = fileURLToPath(new URL(FROM_SOURCE ? "./projector/main.ts" : "./projector/main.js", import.meta.url));
const PROJECTOR_EXEC_ARGV = FROM_SOURCE ? ["--import", "tsx"] : [];
const RESTART_DELAY_MS = 1_000;
const STOP_GRACE_MS = 25_000;

/**
 * glibc's malloc settings for the projector process, unless the operator set their own. Its
 * ArrayBuffers (fact payloads, socket reads, statement buffers) come and go by the thousand, tens
 * of kB to MBs each. By default glibc serves them from its main heap once a large buffer has been
 * freed (the mmap threshold then rises to that size, up to 32 MB), and the heap cannot shrink past
 * the live allocations scattered in it: after a drain, 170-230 MB stayed resident with 24 MB of
 * buffers live. With a fixed threshold of 16 kB each such buffer is its own mapping, returned to
 * the system when freed. Measured in the bench: the child's peak RSS 268-278 MB instead of
 * 366-390, projection throughput unchanged. (musl and other allocators ignore it.) The
 * `start:projector` script sets the same value.
 */
const PROJECTOR_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: "16384" };

/**
 * Keeps the projector process running: restarts it after an unexpected exit (its checkpoints make
 * a restart lose and repeat nothing) until `stop` is called.
 *
 * The child runs at a lower CPU priority (`nice`): when both want the cores, an ingest answer, which
 * an SDK is waiting for, goes first, and projecting, which has a one-second lag budget and catches
 * up from the stream, takes what is left. Without contention the priority changes nothing.
 */
function superviseProjector(logger: Logger, nice: number) {
  let child: ChildProcess | undefined;
  let stopping = false;
  const start = () => {
    const current = fork(PROJECTOR_ENTRY, [], { execArgv: PROJECTOR_EXEC_ARGV, env: { ...PROJECTOR_MALLOC_ENV, ...process.env }, stdio: "inherit" });
    child = current;
    // Never above the parent's own priority: lowering a nice value needs privileges.
    if (current.pid !== undefined && nice > getPriority()) {
      try {
        setPriority(current.pid, nice);
      } catch (error) {
        logger.warn({ err: error }, "could not lower the projector process's CPU priority");
      }
    }
    current.once("exit", (code, signal) => {
      if (stopping) return;
      logger.error({ code, signal }, "projector process exited; restarting it");
      setTimeout(() => !stopping && start(), RESTART_DELAY_MS);
    });
  };
  start();
  return {
    pid: () => child?.pid,
    stop: async () => {
      stopping = true;
      const current = child;
      if (!current || current.exitCode !== null || current.signalCode !== null) return;
      const exited = new Promise((resolve) => current.once("exit", resolve));
      current.kill("SIGTERM");
      const force = setTimeout(() => current.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(force);
    },
  };
}

/**
 * `npm start`: the API and the worker in this process, the projectors in a child process.
 * Projecting is CPU work (decoding facts, building rows) that would otherwise share one event loop
 * with the HTTP API; as its own process it runs on another core and never delays an ingest answer.
 * The database, migrations and streams are prepared here first, so the child finds them ready.
 */
export async function runEmbedded(config: Config): Promise<void> {
  const service = await startService(config, ["api", "worker"]);
  const projector = superviseProjector(service.logger, config.projectorNice);
  service.logger.info({ url: service.url, namespace: config.namespace, projectorPid: projector.pid() }, "service started");
  closeOnSignals(service.logger, () => Promise.all([service.close(), projector.stop()]));
}
