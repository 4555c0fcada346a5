import { randomBytes, randomUUID } from "node:crypto";
import pino from "pino";
import { afterAll, expect, it } from "vitest";
import { append } from "../../streams/append.ts";
import { connectLog, type Log } from "../../streams/connection.ts";
import { runDurableBatches } from "../../streams/durable.ts";
import { ensureStreams } from "../../streams/ensure.ts";
import { waitUntil } from "../support/processes.ts";
import { TEST_NATS_URL } from "../support/service.ts";
import { dropStreams } from "../support/streams.ts";

/**
 * A durable batch consumer of INGEST delivers each message within seconds whatever the sizes of
 * the ones before it. Pulled by bytes, a request whose leftover budget could not take the next
 * message ended ("message size exceeds maxbytes"); with nothing buffered, the client pulled again
 * only after two missed heartbeats, 30 s later, and new errors became issues half a minute late.
 */

let log: Log | undefined;
let stop: (() => Promise<void>) | undefined;

afterAll(async () => {
  await stop?.();
  if (log) {
    await dropStreams(log);
    await log.close();
  }
});

it("delivers each message within seconds, large ones after small ones on a quiet stream", { timeout: 60_000 }, async () => {
  log = await connectLog([TEST_NATS_URL], `t${randomBytes(5).toString("hex")}`, pino({ level: "silent" }));
  await ensureStreams(log);
  const handled = new Set<number>();
  const consumer = runDurableBatches(log, {
    name: "burst_reader",
    stream: "INGEST",
    filter: "*.*",
    logger: pino({ level: "silent" }),
    maxBatch: 20,
    pullMessages: 4,
    handleBatch: async (messages) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      for (const message of messages) handled.add(message.seq);
    },
  });
  stop = consumer.stop;
  // The consumer starts at new messages: wait until it exists before the first publish.
  await new Promise((resolve) => setTimeout(resolve, 1_000));

  // One at a time, each after the last was handled (the client's buffer is empty when it comes),
  // large after small, as error batches and imports arrive on a quiet stream.
  const subject = log.names.ingestSubject(randomUUID(), randomUUID());
  const sizes = [600_000, 900_000, 20_000, 950_000, 300_000, 800_000, 5_000, 700_000, 990_000, 40_000];
  for (const [index, size] of sizes.entries()) {
    const { seq } = await append(log, subject, randomBytes(size), { msgId: randomUUID() });
    await waitUntil(`message ${index + 1} (${size} bytes) to be handled`, () => handled.has(seq), 10_000, 20);
  }
  expect(handled.size).toBe(sizes.length);
});
