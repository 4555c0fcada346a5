import { feedbackDecider, type FeedbackCommand } from "../../domain/feedback/decider.ts";
import type { Actor } from "../../domain/shared/envelope.ts";
import { feedbackState } from "../../projections/feedback/decision-state.ts";
import { handleCommand } from "./command-handler.ts";
import type { CommandDeps } from "./deps.ts";

const feedbackIdOf = (command: FeedbackCommand): string => (command.type === "SubmitFeedback" ? command.submission.feedback_id : command.feedbackId);

/**
 * Runs a feedback command on its record's subject with the record as the read model holds it.
 * @throws DomainError from the decider; unavailable after too many lost races or when the read model lags
 */
export function runFeedbackCommand(deps: CommandDeps, command: FeedbackCommand, actor: Actor) {
  const feedbackId = feedbackIdOf(command);
  return handleCommand(deps, {
    aggregate: { type: "feedback", id: feedbackId },
    decider: feedbackDecider,
    load: () => feedbackState(deps.pool, feedbackId),
    command,
    actor,
  });
}
