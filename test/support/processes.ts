import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A child process the test owns: its output is kept for failure messages, its exit is awaitable. */
export type OwnedProcess = {
  child: ChildProcess;
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
  /** Sends `signal` and waits for the exit; escalates to SIGKILL after `graceMs`. */
  stop: (signal?: NodeJS.Signals, graceMs?: number) => Promise<void>;
};

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Children must not outlive a test run that crashed: kill the ones still running when this process exits. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
}

export function own(command: string, args: string[], options: SpawnOptions = {}): OwnedProcess {
  installExitHook();
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  live.add(child);
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  const stop = async (signal: NodeJS.Signals = "SIGTERM", graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { child, pid: child.pid, exited, output: () => output, stop };
}

/**
 * Runs a TypeScript entry point of this repository in its own Node process through tsx's loader
 * (`node --import tsx`), so the pid is the process that runs the code: a SIGKILL really kills it,
 * with no npx or tsx wrapper in between to swallow or forward the signal.
 */
export function spawnTsx(entry: string, env: Record<string, string>, args: string[] = []): OwnedProcess {
  return own(process.execPath, ["--import", "tsx", entry, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
  });
}

let built: Promise<void> | undefined;

/** One build of this checkout at a time, across the test files' processes (util-linux's flock). */
const BUILD_LOCK = join(tmpdir(), `event-analytics-build-${createHash("sha256").update(REPO_ROOT).digest("hex").slice(0, 12)}.lock`);

/**
 * `npm run build` (tsc into dist/ plus the SQL files), once per process: what `npm start` runs
 * before it starts the compiled service. Test files run in parallel processes, and two builds at
 * once would write the same files: each waits for the others' builds, and finds little left to do.
 */
export function buildOnce(): Promise<void> {
  built ??= new Promise((resolve, reject) => {
    const build = own("flock", [BUILD_LOCK, "npm", "run", "build", "--silent"], { cwd: REPO_ROOT });
    void build.exited.then(({ code }) => (code === 0 ? resolve() : reject(new Error(`npm run build failed:\n${build.output()}`))));
  });
  return built;
}

/** Runs a compiled entry point (`apps/main.ts` runs as dist/apps/main.js), as `npm start` does; call `buildOnce` first. */
export function spawnBuilt(entry: string, env: Record<string, string>): OwnedProcess {
  return own(process.execPath, [`dist/${entry.replace(/\.ts$/, ".js")}`], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
  });
}

/** A TCP port nobody listens on right now (bound and released; the caller binds it soon after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Resolves with `ready`, or rejects with the child's output if `child` exits before `ready` settled. */
export async function readyBeforeExit<T>(child: OwnedProcess, name: string, ready: Promise<T>): Promise<T> {
  const failed = child.exited.then(({ code, signal }) => {
    throw new Error(`${name} exited (${code ?? signal}) before it was ready:\n${child.output()}`);
  });
  failed.catch(() => undefined);
  return Promise.race([ready, failed]);
}

/** Polls `check` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function waitUntil<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ""}`);
}

/**
 * Runs cleanup steps one after the other, each bounded by `timeoutMs`; a step that fails or hangs
 * does not keep the next ones (killing servers, deleting temp dirs) from running. Rethrows the
 * first failure at the end.
 */
export async function cleanUp(steps: (() => Promise<unknown> | unknown)[], timeoutMs = 20_000): Promise<void> {
  let firstError: unknown;
  for (const step of steps) {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.resolve().then(step),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`cleanup step timed out after ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch (error) {
      firstError ??= error;
    } finally {
      clearTimeout(timer);
    }
  }
  if (firstError !== undefined) throw firstError;
}
