import { ConfigError } from "./config.ts";

/** Startup failures end the process with one clear line instead of a stack trace for config mistakes. */
export function exitOnStartupError(error: unknown): never {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error("failed to start:", error);
  process.exit(1);
}

/**
 * A process `npm start` forked stops with its parent, even when the parent was killed, also when
 * that happened while this process was still loading (the event has then passed). A process
 * started on its own (no IPC channel) is left alone.
 */
export function stopWithParent(): void {
  if (!process.send) return;
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
  if (!process.connected) process.kill(process.pid, "SIGTERM");
}
