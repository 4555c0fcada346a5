import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { namesFor, type Names } from "./names.ts";
import { NATS, type NatsHandles } from "./nats-handles.ts";

/**
 * A connection to the event log. Its NATS handles stay inside streams/: the rest of the code
 * appends, reads and reserves through the functions of this folder.
 */
export type Log = {
  readonly names: Names;
  /** A KV bucket by its short name, for the functions of streams/ (reservations, the code store, shared secrets). */
  readonly bucket: (name: string) => Promise<KV>;
  readonly close: () => Promise<void>;
  readonly [NATS]: NatsHandles;
};

/** Connects with endless reconnects: a NATS restart is an outage to ride out, not a reason to exit. */
export async function connectLog(servers: string[], namespace: string, log: Logger): Promise<Log> {
  const nc = await connect({
    servers,
    name: `event-analytics-${namespace}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    pingInterval: 5_000,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === "disconnect" || status.type === "reconnect") log.warn({ nats: status.type }, "nats connection changed");
    }
  })();
  const js = jetstream(nc, { timeout: 5_000 });
  const jsm = await jetstreamManager(nc, { timeout: 5_000 });
  const kvm = new Kvm(js);
  const names = namesFor(namespace);
  const buckets = new Map<string, Promise<KV>>();
  return {
    [NATS]: { nc, js, jsm },
    names,
    bucket: (name) => {
      let bucket = buckets.get(name);
      if (!bucket) {
        bucket = kvm.open(names.bucket(name));
        buckets.set(name, bucket);
      }
      return bucket;
    },
    close: async () => {
      if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
}
