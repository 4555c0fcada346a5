import type { Logger } from "pino";
import { decodeIngestFact } from "../../domain/identity/ingest-fact.ts";
import { errorEventsOf } from "../../domain/issues/error-events.ts";
import { SYSTEM_ACTOR } from "../../domain/shared/envelope.ts";
import type { Log } from "../../streams/connection.ts";
import { runDurable } from "../../streams/durable.ts";
import type { CommandDeps } from "../commands/deps.ts";
import { runIssueCommand } from "../commands/issue-command.ts";

/**
 * The issue detector: a durable consumer of the INGEST stream's event batches
 * (`<ns>.i.<project>.<app>`; identity subjects have one token more and are not matched). Each
 * batch's error events become one issues command on the project's subject, whose message id is
 * derived from the batch's stream sequence: a redelivered batch is dropped by the stream's dedup,
 * or, past its window, decided again on a state that already holds its occurrences, which
 * decides nothing. An error is an issue as soon as the batch is read, not at the hourly scan.
 */
export function startIssueDetector(deps: CommandDeps & { logger: Logger; log: Log }): { stop: () => Promise<void> } {
  return runDurable(deps.log, {
    name: "issue_detector",
    stream: "INGEST",
    filter: "*.*",
    logger: deps.logger,
    handle: async (message) => {
      const decoded = decodeIngestFact(message.data);
      if (decoded.kind !== "events") return;
      const batch = decoded.fact;
      const events = errorEventsOf(batch);
      if (events.length === 0) return;
      await runIssueCommand(
        deps,
        { type: "DetectErrors", projectId: batch.project_id, teamId: batch.team_id, events, imported: batch.mode === "import", now: new Date().toISOString() },
        SYSTEM_ACTOR,
        `issues-ingest-${message.seq}`,
      );
    },
  });
}
