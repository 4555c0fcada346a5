import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { STREAM_KINDS } from "../domain/shared/stream-kind.ts";
import type { Log } from "./connection.ts";
import { BUCKETS, streamConfig } from "./definitions.ts";
import { NATS } from "./nats-handles.ts";

/** The stream that holds a KV bucket's entries, as the KV client names it. */
export const bucketStream = (bucket: string) => `KV_${bucket}`;

/**
 * Creates the streams and KV buckets that do not exist yet, and raises existing ones to `replicas`
 * copies: safe to run on every start of every instance. Raising STREAM_REPLICAS on a running
 * cluster is a restart of one instance; the servers copy the data to the new replicas themselves.
 */
export async function ensureStreams(log: Log, replicas = 1): Promise<void> {
  const { js, jsm } = log[NATS];
  const placed = <T>(request: () => Promise<T>) => whilePlacing(request, Date.now() + PLACEMENT_WAIT_MS);
  for (const kind of STREAM_KINDS) {
    const config = streamConfig(log.names, kind, replicas);
    const existing = await streamInfo(jsm, config.name!);
    if (existing) {
      await placed(() => keepReplicas(jsm, existing.config, replicas));
      continue;
    }
    try {
      await placed(() => jsm.streams.add(config as StreamConfig));
    } catch (raced) {
      // Another process created it between our info and add.
      if (!(await streamInfo(jsm, config.name!))) throw raced;
    }
  }
  const kvm = new Kvm(js);
  for (const bucket of BUCKETS) {
    const name = log.names.bucket(bucket.name);
    const existing = await streamInfo(jsm, bucketStream(name));
    if (existing) await placed(() => keepReplicas(jsm, existing.config, replicas));
    else await placed(() => kvm.create(name, { history: 1, ttl: bucket.ttlMs, description: bucket.description, replicas }));
  }
}

/**
 * A cluster that is still forming (all instances started together) has too few peers for the
 * replicas asked for, or no meta leader yet: JetStream answers "no suitable peers for placement"
 * (10005) or "temporarily unavailable" (10008). Those are waited out; anything else is an error.
 */
const PLACEMENT_WAIT_MS = 60_000;
const FORMING_CLUSTER_CODES = new Set([10005, 10008]);

async function whilePlacing<T>(request: () => Promise<T>, deadline: number): Promise<T> {
  for (;;) {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof JetStreamApiError && FORMING_CLUSTER_CODES.has(error.code)) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

async function streamInfo(jsm: JetStreamManager, name: string) {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) return undefined;
    throw error;
  }
}

/**
 * Only the replica count changes, and only upwards: the rest of a stream's settings is fixed at
 * creation, and an instance restarted with an old, lower STREAM_REPLICAS must not take copies
 * away from a cluster the others raised (lowering is an operator's deliberate `nats stream edit`).
 */
async function keepReplicas(jsm: JetStreamManager, config: StreamConfig, replicas: number): Promise<void> {
  if (config.num_replicas >= replicas) return;
  await jsm.streams.update(config.name, { ...config, num_replicas: replicas });
}
