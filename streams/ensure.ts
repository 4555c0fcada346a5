import { JetStreamApiCodes, JetStreamApiError, type StreamConfig } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { STREAM_KINDS } from "../domain/shared/stream-kind.ts";
import type { Log } from "./connection.ts";
import { BUCKETS, streamConfig } from "./definitions.ts";
import { NATS } from "./nats-handles.ts";

/** Creates the streams and KV buckets that do not exist yet; safe to run on every start. */
export async function ensureStreams(log: Log): Promise<void> {
  const { js, jsm } = log[NATS];
  for (const kind of STREAM_KINDS) {
    const config = streamConfig(log.names, kind);
    try {
      await jsm.streams.info(config.name!);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
      try {
        await jsm.streams.add(config as StreamConfig);
      } catch (raced) {
        // Another process created it between our info and add.
        await jsm.streams.info(config.name!).catch(() => Promise.reject(raced));
      }
    }
  }
  const kvm = new Kvm(js);
  for (const bucket of BUCKETS) {
    await kvm.create(log.names.bucket(bucket.name), {
      history: 1,
      ttl: bucket.ttlMs,
      description: bucket.description,
    });
  }
}
