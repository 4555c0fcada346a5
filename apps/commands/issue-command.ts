import { issuesDecider, type IssueCommand } from "../../domain/issues/decider.ts";
import type { Actor } from "../../domain/shared/envelope.ts";
import { detectionState, digestState, issueState } from "../../projections/issues/decision-state.ts";
import { handleCommand } from "./command-handler.ts";
import type { CommandDeps } from "./deps.ts";

/**
 * Runs an issue command on its project's issues subject, with the state it needs: for detection,
 * what the batch's fingerprints and sessions already have; for a workflow change, the issue it
 * names. The worker's detector and issue_scan and the API's routes all run theirs through here.
 * @throws DomainError from the decider; unavailable after too many lost races or when the read model lags
 */
export function runIssueCommand(deps: CommandDeps, command: IssueCommand, actor: Actor, messageId?: string) {
  return handleCommand(deps, {
    aggregate: { type: "issues", id: command.projectId },
    decider: issuesDecider,
    load: () => {
      switch (command.type) {
        case "DetectErrors":
          return detectionState(deps.pool, command.projectId, command.events);
        case "MergeIssues":
          return issueState(deps.pool, command.projectId, [command.targetIssueId, command.sourceIssueId]);
        case "ChangeIssueStatus":
          return issueState(deps.pool, command.projectId, [command.issueId]);
        case "PrepareDigest":
          return digestState(deps.pool, command.projectId);
        default:
          return issueState(deps.pool, command.projectId, [command.issueId], command.commentId);
      }
    },
    command,
    actor,
    messageId,
  });
}
