import { STREAM_KINDS } from "../domain/shared/stream-kind.ts";
import type { Log } from "./connection.ts";
import { BUCKETS } from "./definitions.ts";
import { NATS } from "./nats-handles.ts";

/** Deletes the namespace's streams and KV buckets from the server (tests and benchmarks clean up with it). Throws nothing. */
export async function removeStreams(log: Log): Promise<void> {
  const { jsm } = log[NATS];
  const names = [...STREAM_KINDS.map((kind) => log.names.stream(kind)), ...BUCKETS.map((bucket) => `KV_${log.names.bucket(bucket.name)}`)];
  for (const name of names) await jsm.streams.delete(name).catch(() => undefined);
}
