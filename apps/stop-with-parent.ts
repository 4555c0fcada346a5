// No imports: an entry point runs this before it loads the service's modules.

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
