import type { Logger } from "pino";
import { decodeIngestFact } from "../../domain/identity/ingest-fact.ts";
import { ERROR_EVENTS_HEADER } from "../../domain/ingest/fact.ts";
import type { ErrorEvent } from "../../domain/issues/decider.ts";
import { errorEventsOf } from "../../domain/issues/error-events.ts";
import { SYSTEM_ACTOR } from "../../domain/shared/envelope.ts";
import type { Log } from "../../streams/connection.ts";
import { runDurableBatches, type DeliveredMessage } from "../../streams/durable.ts";
import type { CommandDeps } from "../commands/deps.ts";
import { runIssueCommand } from "../commands/issue-command.ts";

/** Ingest messages handed to one call: at 100 events a message, tens of thousands of events. */
const MAX_MESSAGES_PER_CALL = 200;
/** Error events in one decision: its facts (an occurrence each, at most) stay well inside a NATS message. */
const MAX_EVENTS_PER_DECISION = 500;
/** Ingest messages asked of the server at a time: a few megabytes on their way at most. */
const PULL_MESSAGES = 32;

/** The error events of one project's messages in a call, which one decision (or a few) takes. */
type ProjectErrors = { projectId: string; teamId: string; imported: boolean; events: ErrorEvent[]; firstSeq: number; lastSeq: number };

/**
 * The issue detector: a durable consumer of the INGEST stream's event batches
 * (`<ns>.i.<project>.<app>`; identity subjects have one token more and are not matched).
 *
 * Messages come in batches (everything that arrived while the last call decided), and each
 * project's error events in a batch are one issues command on the project's subject: a decision
 * costs a round trip to the log and the wait for the issues read model, so deciding per ingest
 * message would fall behind a busy project, while one decision per project and call keeps up at any
 * rate. Projects decide in parallel. Messages whose `Error-Events` header says none are skipped
 * without being decoded.
 *
 * A redelivered message is decided again on a state that already holds its occurrences (one per
 * issue and session), which decides nothing. The message ids derive from the batch's sequences, so
 * the stream's dedup drops only a repeat batched the same way; the state is what makes redelivery
 * safe. An error is an issue as soon as its batch is read, not at the hourly scan.
 */
export function startIssueDetector(deps: CommandDeps & { logger: Logger; log: Log }): { stop: () => Promise<void> } {
  const logger = deps.logger.child({ component: "issue-detector" });
  return runDurableBatches(deps.log, {
    name: "issue_detector",
    stream: "INGEST",
    filter: "*.*",
    logger: deps.logger,
    maxBatch: MAX_MESSAGES_PER_CALL,
    pullMessages: PULL_MESSAGES,
    handleBatch: async (messages) => {
      const now = new Date().toISOString();
      const decisions = [...errorsByProject(messages, logger).values()].map(async (group) => {
        for (let start = 0, part = 0; start < group.events.length; start += MAX_EVENTS_PER_DECISION, part += 1) {
          await runIssueCommand(
            deps,
            { type: "DetectErrors", projectId: group.projectId, teamId: group.teamId, events: group.events.slice(start, start + MAX_EVENTS_PER_DECISION), imported: group.imported, now },
            SYSTEM_ACTOR,
            `issues-ingest-${group.firstSeq}-${group.lastSeq}-${part}`,
          );
        }
      });
      // Every project's decision runs to its end before a failure redelivers the batch.
      const failed = (await Promise.allSettled(decisions)).find((outcome) => outcome.status === "rejected");
      if (failed) throw failed.reason;
    },
  });
}

/** The error events of `messages` by project (and by ingest versus import), in stream order. */
function errorsByProject(messages: DeliveredMessage[], logger: Logger): Map<string, ProjectErrors> {
  const groups = new Map<string, ProjectErrors>();
  for (const message of messages) {
    if (message.header(ERROR_EVENTS_HEADER) === "0") continue;
    let decoded;
    try {
      decoded = decodeIngestFact(message.data);
    } catch (error) {
      // The projectors park such a message; retrying cannot make it readable.
      logger.error({ err: error, seq: message.seq }, "skipped an ingest message that does not decode");
      continue;
    }
    if (decoded.kind !== "events") continue;
    const batch = decoded.fact;
    const events = errorEventsOf(batch);
    if (events.length === 0) continue;
    const imported = batch.mode === "import";
    const key = `${batch.project_id}:${imported}`;
    const group = groups.get(key) ?? { projectId: batch.project_id, teamId: batch.team_id, imported, events: [], firstSeq: message.seq, lastSeq: message.seq };
    group.events.push(...events);
    group.lastSeq = message.seq;
    groups.set(key, group);
  }
  return groups;
}
