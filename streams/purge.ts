import { AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { Log } from "./connection.ts";
import { LogUnavailableError } from "./errors.ts";
import { NATS } from "./nats-handles.ts";

/** A probe consumer left behind by a crash between its creation and deletion goes away by itself after this long. */
const PROBE_INACTIVE_MS = 30_000;

/**
 * The stream sequence from which `subject` holds only messages stored at or after `time`: every
 * message on it below this sequence was stored earlier. nats-server 2.9 cannot get a message by
 * time (that came with 2.11), so an ephemeral consumer that starts by time is created and asked
 * where it starts (its `delivered.stream_seq` is its first sequence minus one), then deleted; it
 * never delivers anything. Past the stream's last message it starts after it.
 */
async function sequenceFrom(log: Log, stream: string, subject: string, time: Date): Promise<number> {
  const { jsm } = log[NATS];
  const probe = await jsm.consumers.add(stream, {
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.StartTime,
    opt_start_time: time.toISOString(),
    filter_subject: subject,
    inactive_threshold: nanos(PROBE_INACTIVE_MS),
  });
  await jsm.consumers.delete(stream, probe.name).catch(() => undefined);
  return probe.delivered.stream_seq + 1;
}

/** What a purge removed. */
export type Purged = { subject: string; belowSeq: number; purged: number };

/**
 * Removes from `<ns>_INGEST` the event batches of one project (or of one of its apps) stored
 * before `before` (by the time the stream stored them, not the time of their events). Identity
 * subjects (`<ns>.i.<project>.u.<hash>`) are never touched: claims and properties define app users
 * for ever. Uses JetStream's purge with a subject filter and a sequence (purge below), which
 * nats-server 2.9 supports. `appliedThrough`, when given, bounds it further: no message after that
 * sequence is purged (the caller passes the last sequence every reader of INGEST has applied, so
 * a lagging projector loses nothing it has not seen). Safe to repeat.
 * @throws LogUnavailableError when NATS cannot answer
 */
export async function purgeIngestBefore(log: Log, options: { projectId: string; appId?: string; before: Date; appliedThrough?: number }): Promise<Purged> {
  const stream = log.names.stream("INGEST");
  const subject = options.appId === undefined ? log.names.projectBatches(options.projectId) : log.names.ingestSubject(options.projectId, options.appId);
  try {
    const storedFrom = await sequenceFrom(log, stream, subject, options.before);
    const belowSeq = options.appliedThrough === undefined ? storedFrom : Math.min(storedFrom, options.appliedThrough + 1);
    // Nothing lies below sequence 1; and a purge request without a sequence would take the whole subject.
    if (belowSeq <= 1) return { subject, belowSeq, purged: 0 };
    const { purged } = await log[NATS].jsm.streams.purge(stream, { filter: subject, seq: belowSeq });
    return { subject, belowSeq, purged };
  } catch (error) {
    throw new LogUnavailableError("the event log could not purge", { cause: error });
  }
}

/**
 * The projects that have event batches on `<ns>_INGEST`, whether or not the directory still
 * knows them: read from the stream's subjects `<ns>.i.<project>.<app>` (two tokens after the root;
 * identity subjects have three).
 * @throws LogUnavailableError when NATS cannot answer
 */
export async function projectsWithBatches(log: Log): Promise<string[]> {
  const root = log.names.subjectRoot("INGEST");
  try {
    const info = await log[NATS].jsm.streams.info(log.names.stream("INGEST"), { subjects_filter: `${root}.*.*` });
    const projects = new Set(Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(root.length + 1).split(".")[0]!));
    return [...projects].sort();
  } catch (error) {
    throw new LogUnavailableError("the event log is unavailable", { cause: error });
  }
}
