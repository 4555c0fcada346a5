import { JetStreamApiCodes, JetStreamApiError, type StreamConfig } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { BUCKETS, streamConfig } from "./definitions.ts";
import type { Log } from "./connection.ts";
import type { StreamKind } from "./names.ts";

const KINDS: StreamKind[] = ["DOMAIN", "INGEST"];

/** Creates the streams and KV buckets that do not exist yet; safe to run on every start. */
export async function ensureStreams(log: Log): Promise<void> {
  for (const kind of KINDS) {
    const config = streamConfig(log.names, kind);
    try {
      await log.jsm.streams.info(config.name!);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
      try {
        await log.jsm.streams.add(config as StreamConfig);
      } catch (raced) {
        // Another process created it between our info and add.
        await log.jsm.streams.info(config.name!).catch(() => Promise.reject(raced));
      }
    }
  }
  const kvm = new Kvm(log.js);
  for (const bucket of BUCKETS) {
    await kvm.create(log.names.bucket(bucket.name), {
      history: 1,
      ttl: bucket.ttlMs,
      description: bucket.description,
    });
  }
}
