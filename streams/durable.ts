import { AckPolicy, DeliverPolicy, JetStreamApiError } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { StreamKind } from "../domain/shared/stream-kind.ts";
import type { Log } from "./connection.ts";
import { NATS } from "./nats-handles.ts";
import type { StoredMessage } from "./read.ts";

export type DurableOptions = {
  /** Consumer name, prefixed with the namespace. */
  name: string;
  stream: StreamKind;
  /** Subject filter below the stream root, e.g. `team.>`. */
  filter: string;
  /** Performs the side effect; a throw redelivers the message later (at-least-once). */
  handle: (message: StoredMessage) => Promise<void>;
  logger: Logger;
  /** The wait before a failed message's `attempt`-th redelivery (1 after the first failure); 5 s when absent. */
  retryDelayMs?: (attempt: number) => number;
};

/**
 * Side effects (email, calls to providers) run from a durable pull consumer with explicit acks,
 * never from projectors. The consumer starts at new messages the first time it is created, then
 * resumes where it acknowledged; a failed handler naks with a delay. The loop re-creates `consume()`
 * whenever it ends, so a NATS restart is ridden out.
 */
export function runDurable(log: Log, options: DurableOptions): { stop: () => Promise<void> } {
  let stopped = false;
  let current: { stop: () => void } | undefined;
  const durable = `${log.names.namespace}_${options.name}`;
  const stream = log.names.stream(options.stream);
  const logger = options.logger.child({ component: "worker", consumer: options.name });
  const { js, jsm } = log[NATS];

  const loop = (async () => {
    while (!stopped) {
      try {
        await jsm.consumers
          .add(stream, {
            durable_name: durable,
            ack_policy: AckPolicy.Explicit,
            deliver_policy: DeliverPolicy.New,
            filter_subject: `${log.names.subjectRoot(options.stream)}.${options.filter}`,
            ack_wait: nanos(60_000),
            max_deliver: 20,
          })
          .catch((error) => {
            // An existing durable with the same name keeps its position.
            if (!(error instanceof JetStreamApiError)) throw error;
          });
        const consumer = await js.consumers.get(stream, durable);
        const messages = await consumer.consume({ max_messages: 20 });
        current = messages;
        for await (const message of messages) {
          try {
            await options.handle(message);
            message.ack();
          } catch (error) {
            logger.warn({ err: error, seq: message.seq }, "side effect failed; will retry");
            message.nak(options.retryDelayMs?.(message.info.deliveryCount) ?? 5_000);
          }
        }
      } catch (error) {
        if (!stopped) logger.warn({ err: error }, "durable consumer interrupted; restarting");
      }
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();

  return {
    stop: async () => {
      stopped = true;
      current?.stop();
      await loop;
    },
  };
}
