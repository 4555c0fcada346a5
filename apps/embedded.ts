import { fork, type ChildProcess } from "node:child_process";
import { getPriority, setPriority } from "node:os";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import type { Config } from "./config.ts";
import { PROJECTIONS } from "../projections/registry.ts";
import { metricsOfChild } from "./observability/metrics-exposure.ts";
import { closeOnSignals, startService, type Part } from "./runtime.ts";

// `npm start` runs the compiled JavaScript in dist/; tests and the CLI run the TypeScript source
// under tsx. The child runs the same way as its parent.
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const BACKGROUND_ENTRY = fileURLToPath(new URL(FROM_SOURCE ? "./background/main.ts" : "./background/main.js", import.meta.url));
const BACKGROUND_EXEC_ARGV = FROM_SOURCE ? ["--import", "tsx"] : [];
const RESTART_DELAY_MS = 1_000;
const STOP_GRACE_MS = 25_000;

/**
 * glibc's malloc settings for the background process, unless the operator set their own. Its
 * ArrayBuffers (fact payloads, socket reads, statement buffers) come and go by the thousand, tens
 * of kB to MBs each. By default glibc serves them from its main heap once a large buffer has been
 * freed (the mmap threshold then rises to that size, up to 32 MB), and the heap cannot shrink past
 * the live allocations scattered in it: after a drain, 170-230 MB stayed resident with 24 MB of
 * buffers live. With a fixed threshold of 16 kB each such buffer is its own mapping, returned to
 * the system when freed. Measured in the bench: the child's peak RSS 268-278 MB instead of
 * 366-390, projection throughput unchanged. (musl and other allocators ignore it.) The
 * `start:projector` script sets the same value.
 */
const BACKGROUND_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: "16384" };

/**
 * How `npm start` spreads the background work over two processes, each on its own core when the
 * API is idle. The `events` read model alone costs about as much CPU as every other projector and
 * the worker together (statement building, its facts decoded in full), and one event loop that
 * ran them all was the drain's limit: a core stayed idle while it was busy.
 */
const BACKGROUND_PROCESSES: { parts: Part[]; projectors: string[] }[] = [
  { parts: ["projector"], projectors: ["events"] },
  { parts: ["projector", "worker"], projectors: PROJECTIONS.map((projection) => projection.name).filter((name) => name !== "events") },
];

/**
 * Keeps one background process (projectors, and the worker when `parts` says so) running: restarts
 * it after an unexpected exit (checkpoints and durable consumers make a restart lose and repeat
 * nothing) until `stop`.
 *
 * The child runs at a lower CPU priority (`nice`): when both want the cores, an ingest answer, which
 * an SDK is waiting for, goes first; projecting, which has a one-second lag budget and catches up
 * from the stream, and the worker's reactions (issue detection, notifications, jobs) take what is
 * left. Without contention the priority changes nothing.
 */
function superviseBackground(logger: Logger, nice: number, work: { parts: Part[]; projectors: string[] }) {
  let child: ChildProcess | undefined;
  let stopping = false;
  const env = { ...BACKGROUND_MALLOC_ENV, ...process.env, PROJECTORS: work.projectors.join(",") };
  const start = () => {
    const current = fork(BACKGROUND_ENTRY, work.parts, { execArgv: BACKGROUND_EXEC_ARGV, env, stdio: "inherit" });
    child = current;
    // Never above the parent's own priority: lowering a nice value needs privileges.
    if (current.pid !== undefined && nice > getPriority()) {
      try {
        setPriority(current.pid, nice);
      } catch (error) {
        logger.warn({ err: error }, "could not lower the background process's CPU priority");
      }
    }
    current.once("exit", (code, signal) => {
      if (stopping) return;
      logger.error({ code, signal, parts: work.parts }, "background process exited; restarting it");
      setTimeout(() => !stopping && start(), RESTART_DELAY_MS);
    });
  };
  start();
  return {
    pid: () => child?.pid,
    metrics: metricsOfChild(() => child),
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
 * `npm start`: the API in this process; the projectors and the worker in a child process.
 * Projecting and the worker's reactions are CPU work (decoding facts, building rows, reading every
 * ingest batch again for errors) that would otherwise share one event loop with the HTTP API; as
 * their own process they run on another core and never delay an ingest answer. (With the issue
 * detector in this process, ingest acceptance fell by a third in the bench.) The database,
 * migrations and streams are prepared here first, so the child finds them ready.
 */
export async function runEmbedded(config: Config): Promise<void> {
  const service = await startService(config, ["api"]);
  const background = BACKGROUND_PROCESSES.map((work) => superviseBackground(service.logger, config.projectorNice, work));
  for (const child of background) service.metrics.addSource(child.metrics);
  service.logger.info({ url: service.url, namespace: config.namespace, backgroundPids: background.map((process) => process.pid()) }, "service started");
  closeOnSignals(service.logger, () => Promise.all([service.close(), ...background.map((process) => process.stop())]));
}
