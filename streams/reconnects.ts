import type { QueuedIterator, Status } from "@nats-io/transport-node";
import type { Log } from "./connection.ts";
import { NATS } from "./nats-handles.ts";

/**
 * Calls `listener` every time the connection to NATS is re-established after a loss. Returns a
 * function that stops listening. Throws nothing.
 */
export function onReconnect(log: Log, listener: () => void): () => void {
  const status = log[NATS].nc.status() as QueuedIterator<Status>;
  void (async () => {
    for await (const event of status) if (event.type === "reconnect") listener();
  })().catch(() => undefined);
  return () => status.stop();
}
