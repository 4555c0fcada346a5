import { randomBytes } from "node:crypto";
import { DeliverPolicy, type Consumer, type ConsumerMessages } from "@nats-io/jetstream";
import { decodeEventsIngested, type EventsIngested } from "../domain/ingest/events.ts";
import type { Log } from "./connection.ts";
import { NATS } from "./nats-handles.ts";
import { streamHead } from "./stream-head.ts";

/** Names of the consumers of live tails start with this, so operators (and tests) can count them. */
const LIVE_CONSUMER_PREFIX = "live";

/** The narrowest subject a live tail may listen on: one app, one project, or every app. */
export type LiveSubject = { projectId: string; appId?: string } | { everyProject: true };

export type LiveIngest = {
  /** Accepted event batches in stream order; ends when the tail is stopped or its consumer fails. */
  batches: AsyncIterable<EventsIngested>;
  /** Ends `batches` and deletes the consumer on the server. Throws nothing; safe to call twice. */
  stop: () => Promise<void>;
};

function subjectOf(log: Log, scope: LiveSubject): string {
  if ("everyProject" in scope) {
    // Two tokens after the root are an app's batches; identity facts have three (`<project>.u.<hash>`).
    return `${log.names.subjectRoot("INGEST")}.*.*`;
  }
  return scope.appId === undefined ? log.names.projectBatches(scope.projectId) : log.names.ingestSubject(scope.projectId, scope.appId);
}

/** The app id a batch subject names (`<ns>.i.<project>.<app>`): the last token. */
const appOfSubject = (subject: string): string => subject.slice(subject.lastIndexOf(".") + 1);

/**
 * Follows the INGEST stream from its head with an ordered consumer filtered on `scope`'s subject:
 * only batches acknowledged after the consumer opened arrive. `wantsApp` is asked with the app the
 * subject names before a batch is decoded, so batches of apps the caller cannot read cost no JSON
 * parse. Imports (`mode: import`) are skipped: they replay history, not what happens now.
 * @throws the NATS client's error when the consumer cannot be created
 */
export async function followNewIngest(log: Log, scope: LiveSubject, wantsApp: (appId: string) => boolean): Promise<LiveIngest> {
  const { js } = log[NATS];
  const head = await streamHead(log, "INGEST");
  const consumer: Consumer = await js.consumers.get(log.names.stream("INGEST"), {
    // Unique per tail: the client names an ordered consumer `<prefix>_<serial>`, and names share the stream.
    name_prefix: `${LIVE_CONSUMER_PREFIX}_${randomBytes(8).toString("hex")}`,
    filter_subjects: subjectOf(log, scope),
    // A start at the head rather than DeliverPolicy.New: the client recreates an ordered consumer
    // from its last delivered sequence, and before the first delivery that would be the stream's
    // beginning under New (streams/follow.ts does the same).
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: head + 1,
  });
  const messages: ConsumerMessages = await consumer.consume({ max_messages: 50, expires: 10_000 }).catch(async (error: unknown) => {
    await consumer.delete().catch(() => undefined);
    throw error;
  });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      messages.stop();
      // The client only stops pulling; without a delete the server keeps the consumer for its inactivity threshold (minutes).
      await consumer.delete().catch(() => undefined);
    })());

  async function* batches(): AsyncGenerator<EventsIngested> {
    for await (const message of messages) {
      if (!wantsApp(appOfSubject(message.subject))) continue;
      let batch: EventsIngested;
      try {
        batch = decodeEventsIngested(message.data);
      } catch {
        // A fact of a newer schema: the projectors decide what it means; a tail just leaves it out.
        continue;
      }
      if (batch.mode === "ingest") yield batch;
    }
  }
  return { batches: batches(), stop };
}

/**
 * How many live-tail consumers the INGEST stream has, from every process of the namespace.
 * @throws the NATS client's error when the stream cannot be listed
 */
export async function countLiveConsumers(log: Log): Promise<number> {
  let count = 0;
  for await (const info of log[NATS].jsm.consumers.list(log.names.stream("INGEST"))) {
    if (info.name.startsWith(`${LIVE_CONSUMER_PREFIX}_`)) count += 1;
  }
  return count;
}
