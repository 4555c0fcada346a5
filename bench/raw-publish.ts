import { randomBytes, randomUUID } from "node:crypto";
import pino from "pino";
import { append } from "../streams/append.ts";
import { connectLog } from "../streams/connection.ts";
import { ensureStreams } from "../streams/ensure.ts";
import { removeStreams } from "../streams/remove.ts";
import { round } from "./stats.ts";

export type PublishFigures = { message_bytes: number; in_flight: number; seconds: number; publishes_per_second: number; mb_per_second: number };

/**
 * The most acknowledged publishes a second JetStream takes of ingest-sized messages: `inFlight`
 * publishes outstanding at a time for `seconds`, each awaited until the server has stored it, with a
 * dedup id as every append carries. They go to the INGEST stream of a scratch namespace (the bench
 * namespace plus "raw"), made with the service's own stream settings through streams/ (the only
 * folder that may talk to NATS), and deleted afterwards with its KV buckets.
 */
export async function measurePublishRate(servers: string[], namespace: string, messageBytes: number, inFlight: number, seconds: number): Promise<PublishFigures> {
  const log = await connectLog(servers, `${namespace}raw`, pino({ level: "warn" }));
  try {
    await ensureStreams(log);
    // Random bytes: neither the client nor the server gets an easier message than a real batch.
    const payload = randomBytes(messageBytes);
    const subject = log.names.ingestSubject(randomUUID(), randomUUID());
    let published = 0;
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (performance.now() < until) {
          await append(log, subject, payload, { msgId: randomUUID() });
          published += 1;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    return {
      message_bytes: messageBytes,
      in_flight: inFlight,
      seconds: round(elapsed, 2),
      publishes_per_second: Math.round(published / elapsed),
      mb_per_second: round((published * messageBytes) / elapsed / 1_048_576),
    };
  } finally {
    await removeStreams(log);
    await log.close();
  }
}
