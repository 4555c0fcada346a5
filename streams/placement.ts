import type { StreamKind } from "../domain/shared/stream-kind.ts";
import type { Log } from "./connection.ts";
import { bucketStream } from "./ensure.ts";
import { NATS } from "./nats-handles.ts";

/** Where a stream lives on a cluster: how many copies it should have, which server leads it, which follow. */
export type Placement = { replicas: number; leader: string | undefined; followers: string[] };

/**
 * The placement of one of our streams, or of a KV bucket's stream (by the bucket's short name).
 * On a single server the leader is that server (or undefined on 2.9, which reports no cluster).
 * @throws the NATS client's error when the log cannot answer
 */
export async function placementOf(log: Log, of: { stream: StreamKind } | { bucket: string }): Promise<Placement> {
  const name = "stream" in of ? log.names.stream(of.stream) : bucketStream(log.names.bucket(of.bucket));
  const info = await log[NATS].jsm.streams.info(name);
  return { replicas: info.config.num_replicas, leader: info.cluster?.leader, followers: (info.cluster?.replicas ?? []).map((peer) => peer.name) };
}
