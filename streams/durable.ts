import { AckPolicy, DeliverPolicy, JetStreamApiError, type ConsumerMessages, type JsMsg } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { StreamKind } from "../domain/shared/stream-kind.ts";
import type { Log } from "./connection.ts";
import { NATS } from "./nats-handles.ts";
import type { StoredMessage } from "./read.ts";

/** Unacknowledged this long, a message is delivered again. */
const ACK_WAIT_MS = 60_000;

/** A stored message as a durable consumer hands it over: with the headers it was published with. */
export type DeliveredMessage = StoredMessage & { header: (name: string) => string | undefined };

type ConsumerOptions = {
  /** Consumer name, prefixed with the namespace. */
  name: string;
  stream: StreamKind;
  /** Subject filter below the stream root, e.g. `team.>`. */
  filter: string;
  logger: Logger;
  /** The wait before a failed message's `attempt`-th redelivery (1 after the first failure); 5 s when absent. */
  retryDelayMs?: (attempt: number) => number;
};

export type DurableOptions = ConsumerOptions & {
  /** Performs the side effect; a throw redelivers the message later (at-least-once). */
  handle: (message: DeliveredMessage) => Promise<void>;
};

export type DurableBatchOptions = ConsumerOptions & {
  /**
   * Handles every message that arrived while the previous call ran, up to `maxBatch`, in stream
   * order; a throw redelivers them all later, so handling must be idempotent per message.
   */
  handleBatch: (messages: DeliveredMessage[]) => Promise<void>;
  maxBatch: number;
  /**
   * Messages asked of the server at a time, `maxBatch` when absent. A stream of large messages
   * (INGEST) asks for fewer: what the server has sent but the process has not read yet counts
   * against the connection, which the server cuts as a slow consumer past 64 MB.
   */
  pullMessages?: number;
};

/**
 * Side effects (email, calls to providers) run from a durable pull consumer with explicit acks,
 * never from projectors. The consumer starts at new messages the first time it is created, then
 * resumes where it acknowledged; a failed handler naks with a delay. The loop re-creates `consume()`
 * whenever it ends, so a NATS restart is ridden out.
 */
export function runDurable(log: Log, options: DurableOptions): { stop: () => Promise<void> } {
  return consumeDurably(log, options, { max_messages: 20 }, async (messages, settle) => {
    for await (const message of messages) await settle([message], () => options.handle(delivered(message)));
  });
}

/**
 * A durable consumer whose handler takes the messages in batches: one message at a time when they
 * trickle in, everything that arrived meanwhile when they come faster than one call takes. A
 * handler with a fixed cost per call (a decision and the wait for its read model) then keeps up at
 * any rate instead of building a backlog. At most `2 × maxBatch` messages are held unacknowledged.
 */
export function runDurableBatches(log: Log, options: DurableBatchOptions): { stop: () => Promise<void> } {
  // Pulled by count, never by bytes: a pull whose byte budget cannot take the next message ends
  // ("message size exceeds maxbytes"), and when that happens with nothing buffered the client pulls
  // again only after two missed heartbeats, 30 s later. What is held is bounded by max_ack_pending.
  return consumeDurably(log, options, { max_messages: options.pullMessages ?? options.maxBatch }, async (messages, settle) => {
    const queue: JsMsg[] = [];
    let arrived: (() => void) | undefined;
    let ended = false;
    let failure: unknown;
    const reader = (async () => {
      try {
        for await (const message of messages) {
          queue.push(message);
          arrived?.();
        }
      } catch (error) {
        failure = error;
      } finally {
        ended = true;
        arrived?.();
      }
    })();
    // Held messages (queued, or in a call that takes long) tell the server they are being worked
    // on, so none is delivered again while it waits its turn.
    let inCall: JsMsg[] = [];
    const heartbeat = setInterval(() => {
      for (const message of [...inCall, ...queue]) message.working();
    }, ACK_WAIT_MS / 3);
    try {
      for (;;) {
        if (queue.length === 0) {
          if (ended) break;
          await new Promise<void>((resolve) => (arrived = resolve));
          arrived = undefined;
          continue;
        }
        inCall = queue.splice(0, options.maxBatch);
        const batch = inCall;
        await settle(batch, () => options.handleBatch(batch.map(delivered)));
        inCall = [];
      }
    } finally {
      clearInterval(heartbeat);
    }
    await reader;
    if (failure) throw failure;
  });
}

type Settle = (messages: JsMsg[], handle: () => Promise<void>) => Promise<void>;

function consumeDurably(
  log: Log,
  options: ConsumerOptions & { maxBatch?: number },
  pull: { max_messages: number },
  drain: (messages: ConsumerMessages, settle: Settle) => Promise<void>,
): { stop: () => Promise<void> } {
  let stopped = false;
  let current: { stop: () => void } | undefined;
  const durable = `${log.names.namespace}_${options.name}`;
  const stream = log.names.stream(options.stream);
  const logger = options.logger.child({ component: "worker", consumer: options.name });
  const { js, jsm } = log[NATS];
  const settle: Settle = async (messages, handle) => {
    try {
      await handle();
      for (const message of messages) message.ack();
    } catch (error) {
      logger.warn({ err: error, seq: messages[0]?.seq, messages: messages.length }, "side effect failed; will retry");
      for (const message of messages) message.nak(options.retryDelayMs?.(message.info.deliveryCount) ?? 5_000);
    }
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        await jsm.consumers
          .add(stream, {
            durable_name: durable,
            ack_policy: AckPolicy.Explicit,
            deliver_policy: DeliverPolicy.New,
            filter_subject: `${log.names.subjectRoot(options.stream)}.${options.filter}`,
            ack_wait: nanos(ACK_WAIT_MS),
            max_deliver: 20,
            ...(options.maxBatch === undefined ? {} : { max_ack_pending: 2 * options.maxBatch }),
          })
          .catch(async (error) => {
            // An existing durable with the same name keeps its position; its limits follow this
            // code (one created before batching has no max_ack_pending of its own).
            if (!(error instanceof JetStreamApiError)) throw error;
            if (options.maxBatch === undefined) return;
            // A server that refuses the change still delivers under the old limits.
            await jsm.consumers
              .update(stream, durable, { max_ack_pending: 2 * options.maxBatch, ack_wait: nanos(ACK_WAIT_MS) })
              .catch((refused: unknown) => logger.warn({ err: refused }, "could not update the consumer's limits; it keeps its old ones"));
          });
        const consumer = await js.consumers.get(stream, durable);
        const messages = await consumer.consume(pull);
        current = messages;
        await drain(messages, settle);
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

function delivered(message: JsMsg): DeliveredMessage {
  return { seq: message.seq, subject: message.subject, data: message.data, header: (name) => message.headers?.get(name) || undefined };
}
