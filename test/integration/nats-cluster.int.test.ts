import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { STREAM_KINDS } from "../../domain/shared/stream-kind.ts";
import { append } from "../../streams/append.ts";
import { connectLog, type Log } from "../../streams/connection.ts";
import { ensureStreams } from "../../streams/ensure.ts";
import { placementOf } from "../../streams/placement.ts";
import { streamState } from "../../streams/stream-head.ts";
import { NatsCluster } from "../support/nats-cluster.ts";
import { cleanUp } from "../support/processes.ts";

/**
 * Streams and KV buckets on a 3-node JetStream cluster: created with STREAM_REPLICAS copies,
 * raised from 1 to 3 by a later start, and still written and read after the stream's leader is
 * killed, through a client that lists every node.
 */

let cluster: NatsCluster | undefined;
let log: Log | undefined;
const quiet = pino({ level: "silent" });

beforeAll(async () => {
  cluster = await NatsCluster.start(3);
}, 60_000);

afterAll(async () => {
  await cleanUp([() => log?.close(), () => cluster?.dispose()]);
});

it("creates every stream and bucket with the configured replicas, and raises them on a later start", { timeout: 60_000 }, async () => {
  log = await connectLog(cluster!.urls, "cluster_replicas", quiet);
  await ensureStreams(log, 1);
  for (const kind of STREAM_KINDS) expect((await placementOf(log, { stream: kind })).replicas).toBe(1);

  // A second start with STREAM_REPLICAS=3 (and a third, unchanged) brings every stream and bucket to three copies.
  await ensureStreams(log, 3);
  await ensureStreams(log, 3);
  for (const kind of STREAM_KINDS) {
    expect((await placementOf(log, { stream: kind })).replicas).toBe(3);
    // Once the servers have copied it: a leader and two followers, all three nodes.
    await expect
      .poll(async () => {
        const { leader, followers } = await placementOf(log!, { stream: kind });
        return leader === undefined ? [] : [leader, ...followers].sort();
      }, { timeout: 20_000 })
      .toEqual(cluster!.names);
  }
  expect((await placementOf(log, { bucket: "secrets" })).replicas).toBe(3);
  await log.close();
  log = undefined;
});

it("keeps every acknowledged write when the stream's leader is killed, and serves them from the others", { timeout: 90_000 }, async () => {
  log = await connectLog(cluster!.urls, "cluster_failover", quiet);
  await ensureStreams(log, 3);
  const subject = `${log.names.subjectRoot("INGEST")}.failover`;

  const acknowledged: number[] = [];
  const publish = async (n: number) => {
    // Retried until acknowledged, as a client retries a 503: while a new leader is elected, appends fail.
    for (;;) {
      try {
        await append(log!, subject, JSON.stringify({ n }), { msgId: `failover-${n}` });
        acknowledged.push(n);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  for (let n = 0; n < 50; n += 1) await publish(n);

  const { leader } = await placementOf(log, { stream: "INGEST" });
  expect(leader).toBeDefined();
  await cluster!.stop(leader!, "SIGKILL");
  for (let n = 50; n < 100; n += 1) await publish(n);

  // A new leader among the two left, and every acknowledged message exactly once (msgID deduplicates retries).
  const after = await placementOf(log, { stream: "INGEST" });
  expect(after.leader).toBeDefined();
  expect(after.leader).not.toBe(leader);
  expect((await streamState(log, "INGEST")).messages).toBe(100);

  // The killed node comes back with its store and catches up; nothing of ours was restarted.
  await cluster!.restart(leader!);
  await cluster!.waitForJetStream();
  for (let n = 100; n < 110; n += 1) await publish(n);
  expect(acknowledged).toHaveLength(110);
  expect((await streamState(log, "INGEST")).messages).toBe(110);
});
