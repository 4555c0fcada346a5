import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";

/**
 * The key under which a `Log` keeps its raw NATS handles. Only streams/ imports this file (the
 * dependency check says so), so the rest of the code reaches the log through streams/ functions.
 */
export const NATS: unique symbol = Symbol("nats handles");

export type NatsHandles = {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
};
