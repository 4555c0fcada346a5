import { DeliverPolicy, type ConsumerMessages } from "@nats-io/jetstream";
import type { QueuedIterator, Status } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { decodeDomainEnvelope, decodeDomainEnvelopeOf, type DomainEnvelope } from "../domain/events.ts";
import type { Log } from "./connection.ts";
import { NATS } from "./nats-handles.ts";
import { streamHead } from "./stream-head.ts";

/** What a follower of the DOMAIN stream is told. A listener that throws is logged, never retried. */
export type DomainListener = {
  /** A fact appended after the follower started, in stream order, each once. */
  fact: (envelope: DomainEnvelope, seq: number) => void;
  /** A fact that does not decode (a newer schema?): the listener cannot tell what it changed. */
  unreadable: (seq: number, error: unknown) => void;
  /** Facts are delivered from here on: after the first consumer opened, and after every `lost`. */
  following: () => void;
  /** Facts appended from now until the next `following` may arrive late (never skipped). */
  lost: (reason: string) => void;
  /** The event types the listener reads; others are left out of `fact`'s envelope undecoded. All when absent. */
  wanted?: (type: string) => boolean;
};

export type Following = { stop: () => Promise<void> };

/** Pull requests expire after this long; the server sends idle heartbeats at half of it, so a silent consumer is noticed within it. */
const PULL_EXPIRES_MS = 10_000;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

/**
 * Follows the DOMAIN stream from its head: an ordered consumer that delivers only the facts
 * appended from now on. When the connection drops or the consumer misses its heartbeats, the
 * listener is told `lost`; after a reconnect the follower opens a new consumer after the last fact
 * it delivered (as the projectors do: the old consumer can stall on a pull the restarted server
 * forgot), so no fact is skipped, and tells `following`. Resolves once the first consumer is open,
 * or once its first opening failed (it keeps retrying, and the listener stays `lost`).
 * Throws nothing.
 */
export async function followDomain(log: Log, logger: Logger, listener: DomainListener): Promise<Following> {
  const follower = new DomainFollower(log, logger.child({ component: "domain-follower" }), listener);
  await follower.start();
  return { stop: () => follower.stop() };
}

class DomainFollower {
  /** The sequence of the last fact delivered (the stream's head when it started). */
  #cursor: number | undefined;
  #messages: ConsumerMessages | undefined;
  #connection: QueuedIterator<Status> | undefined;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #following = false;
  #stopped = false;

  constructor(
    private readonly log: Log,
    private readonly logger: Logger,
    private readonly listener: DomainListener,
  ) {}

  start(): Promise<void> {
    this.#watchConnection();
    return new Promise((firstAttempt) => {
      this.#loop = this.#run(firstAttempt);
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#connection?.stop();
    this.#messages?.stop();
    this.#wake?.();
    await this.#loop;
  }

  #watchConnection(): void {
    const connection = this.log[NATS].nc.status() as QueuedIterator<Status>;
    this.#connection = connection;
    void (async () => {
      for await (const status of connection) {
        if (this.#stopped) return;
        if (status.type === "disconnect") this.#lose("disconnected from NATS");
        // Reopen after the last delivered fact rather than trust the consumer to resume.
        if (status.type === "reconnect") this.#restart();
      }
    })().catch(() => undefined);
  }

  #restart(): void {
    this.#lose("reconnected to NATS; reopening the consumer");
    this.#messages?.stop();
    this.#wake?.();
  }

  async #run(firstAttempt: () => void): Promise<void> {
    let retryMs = FIRST_RETRY_MS;
    while (!this.#stopped) {
      let failed = false;
      try {
        const messages = await this.#open();
        firstAttempt();
        retryMs = FIRST_RETRY_MS;
        await this.#deliver(messages);
      } catch (error) {
        failed = true;
        if (!this.#stopped) this.logger.warn({ err: error }, "following the domain stream failed; retrying");
      }
      firstAttempt();
      if (this.#stopped) return;
      this.#lose("the consumer ended");
      if (failed) {
        await this.#sleep(retryMs);
        retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
      }
    }
  }

  async #open(): Promise<ConsumerMessages> {
    this.#cursor ??= await streamHead(this.log, "DOMAIN");
    const consumer = await this.log[NATS].js.consumers.get(this.log.names.stream("DOMAIN"), {
      // An explicit start, not DeliverPolicy.New: an ordered consumer reset before its first
      // message would otherwise restart from the beginning of the stream.
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: this.#cursor + 1,
    });
    const messages = await consumer.consume({ max_messages: 100, expires: PULL_EXPIRES_MS });
    this.#messages = messages;
    if (this.#stopped) messages.stop();
    else this.#found();
    this.#watchConsumer(messages);
    return messages;
  }

  #watchConsumer(messages: ConsumerMessages): void {
    void (async () => {
      for await (const notification of messages.status()) {
        if (this.#stopped || this.#messages !== messages) return;
        if (notification.type === "heartbeats_missed") this.#lose(`the consumer missed ${notification.count} heartbeats`);
        if (notification.type === "ordered_consumer_recreated") this.#found();
      }
    })().catch(() => undefined);
  }

  async #deliver(messages: ConsumerMessages): Promise<void> {
    for await (const message of messages) {
      this.#cursor = message.seq;
      // A message proves the consumer works, whatever a heartbeat said before.
      this.#found();
      let envelope: DomainEnvelope;
      try {
        const wanted = this.listener.wanted;
        envelope = wanted ? decodeDomainEnvelopeOf(message.data, wanted) : decodeDomainEnvelope(message.data);
      } catch (error) {
        this.#tell(() => this.listener.unreadable(message.seq, error));
        continue;
      }
      this.#tell(() => this.listener.fact(envelope, message.seq));
    }
  }

  #found(): void {
    if (this.#following || this.#stopped) return;
    this.#following = true;
    this.#tell(() => this.listener.following());
  }

  #lose(reason: string): void {
    if (!this.#following || this.#stopped) return;
    this.#following = false;
    this.#tell(() => this.listener.lost(reason));
  }

  #tell(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.logger.error({ err: error }, "a domain stream listener failed");
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
