import pino from "pino";
import type { DomainEnvelope, DomainEvent } from "../../domain/events.ts";
import { newId } from "../../domain/shared/ids.ts";
import type { StreamKind } from "../../domain/shared/stream-kind.ts";
import { append } from "../../streams/append.ts";
import { connectLog, type Log } from "../../streams/connection.ts";
import { removeStreams } from "../../streams/remove.ts";
import { streamHead as lastSeqOf } from "../../streams/stream-head.ts";

/** The last sequence on one of the namespace's streams. */
export async function streamHead(log: Log, stream: StreamKind = "DOMAIN"): Promise<number> {
  return lastSeqOf(log, stream);
}

/**
 * Appends `events` as one envelope straight to `subject`, as if a command had decided them (no
 * expected sequence); returns the stream sequence it got.
 */
export async function appendFacts(log: Log, subject: string, events: DomainEvent[], actor: DomainEnvelope["actor"] = { type: "system", id: null }): Promise<number> {
  const envelope: DomainEnvelope = { id: newId(), at: new Date().toISOString(), actor, events };
  return (await append(log, subject, JSON.stringify(envelope), { msgId: envelope.id })).seq;
}

/** Deletes the namespace's streams and KV buckets from the NATS server. */
export async function dropStreams(log: Log): Promise<void> {
  await removeStreams(log);
}

/** Connects to `servers` only to delete `namespace`'s streams and KV buckets (for a service that ran in a child process). */
export async function dropNamespace(servers: string[], namespace: string): Promise<void> {
  const log = await connectLog(servers, namespace, pino({ level: "silent" }));
  try {
    await dropStreams(log);
  } finally {
    await log.close();
  }
}
