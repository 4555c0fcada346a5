import type { DomainEvent } from "../events.ts";
import type { Decider } from "../shared/decider.ts";
import { conflict, forbidden, notFound } from "../shared/errors.ts";
import type { CommentAuthor, FeedbackSubmitted } from "./events.ts";
import type { FeedbackStatus } from "./rules.ts";

export type CommentSummary = { authorType: CommentAuthor["type"]; authorId: string; deleted: boolean };

/**
 * One feedback record as its decisions need it: null before its submission. The read model hands
 * it over whole (a record has few comments), and folding its facts gives the same state.
 */
export type FeedbackState = {
  record: { teamId: string; projectId: string; status: FeedbackStatus; deleted: boolean; comments: Record<string, CommentSummary> } | null;
};

/** Who acts on a record: `moderator` is a team admin or owner, who may delete anyone's comment. */
export type FeedbackActor = { type: CommentAuthor["type"]; id: string; moderator: boolean };

export type FeedbackCommand =
  | { type: "SubmitFeedback"; submission: Omit<FeedbackSubmitted, "type" | "v"> }
  | { type: "ChangeFeedbackStatus"; feedbackId: string; status: FeedbackStatus }
  | { type: "AddFeedbackComment"; feedbackId: string; commentId: string; author: CommentAuthor; body: string; at: string }
  | { type: "EditFeedbackComment"; feedbackId: string; commentId: string; actor: FeedbackActor; body: string; at: string }
  | { type: "DeleteFeedbackComment"; feedbackId: string; commentId: string; actor: FeedbackActor; at: string }
  | { type: "DeleteFeedback"; feedbackId: string; at: string };

type Live = NonNullable<FeedbackState["record"]>;

/** The record a workflow command acts on; a deleted one is as missing as one never sent. */
function live(state: FeedbackState): Live {
  if (!state.record || state.record.deleted) throw notFound("feedback");
  return state.record;
}

function liveComment(record: Live, commentId: string): CommentSummary {
  const comment = record.comments[commentId];
  if (!comment || comment.deleted) throw notFound("comment");
  return comment;
}

const isAuthor = (comment: CommentSummary, actor: FeedbackActor) => comment.authorType === actor.type && comment.authorId === actor.id;

function decide(state: FeedbackState, command: FeedbackCommand): DomainEvent[] {
  if (command.type === "SubmitFeedback") {
    if (state.record) throw conflict("feedback with this id exists");
    return [{ type: "FeedbackSubmitted", v: 1, ...command.submission }];
  }
  const record = live(state);
  const on = { feedback_id: command.feedbackId, team_id: record.teamId, project_id: record.projectId };
  switch (command.type) {
    case "ChangeFeedbackStatus":
      // Every move between the four statuses is allowed: triage is a label, not a lifecycle.
      if (record.status === command.status) return [];
      return [{ type: "FeedbackStatusChanged", v: 1, ...on, previous_status: record.status, status: command.status }];
    case "AddFeedbackComment":
      if (record.comments[command.commentId]) throw conflict("a comment with this id exists");
      return [{ type: "FeedbackCommentAdded", v: 1, ...on, comment_id: command.commentId, author: command.author, body: command.body, created_at: command.at }];
    case "EditFeedbackComment":
      if (!isAuthor(liveComment(record, command.commentId), command.actor)) throw forbidden("only the author may edit a comment");
      return [{ type: "FeedbackCommentEdited", v: 1, ...on, comment_id: command.commentId, body: command.body, edited_at: command.at }];
    case "DeleteFeedbackComment": {
      const comment = liveComment(record, command.commentId);
      if (!isAuthor(comment, command.actor) && !command.actor.moderator) throw forbidden("only the author or a team admin may delete a comment");
      return [{ type: "FeedbackCommentDeleted", v: 1, ...on, comment_id: command.commentId, deleted_at: command.at }];
    }
    case "DeleteFeedback":
      return [{ type: "FeedbackDeleted", v: 1, ...on, deleted_at: command.at }];
    default: {
      const unhandled: never = command;
      throw new Error(`unknown feedback command ${(unhandled as { type: string }).type}`);
    }
  }
}

function evolve(state: FeedbackState, fact: DomainEvent): FeedbackState {
  const record = state.record;
  switch (fact.type) {
    case "FeedbackSubmitted":
      return { record: { teamId: fact.team_id, projectId: fact.project_id, status: "new", deleted: false, comments: {} } };
    case "FeedbackStatusChanged":
      return record ? { record: { ...record, status: fact.status } } : state;
    case "FeedbackCommentAdded":
      if (!record) return state;
      return { record: { ...record, comments: { ...record.comments, [fact.comment_id]: { authorType: fact.author.type, authorId: fact.author.id, deleted: false } } } };
    case "FeedbackCommentDeleted": {
      const comment = record?.comments[fact.comment_id];
      if (!record || !comment) return state;
      return { record: { ...record, comments: { ...record.comments, [fact.comment_id]: { ...comment, deleted: true } } } };
    }
    case "FeedbackDeleted":
      return record ? { record: { ...record, deleted: true } } : state;
    default:
      return state;
  }
}

/** The rules of one feedback record (`<ns>.d.feedback.<feedback_id>`). */
export const feedbackDecider: Decider<FeedbackState, FeedbackCommand, DomainEvent> = {
  initialState: { record: null },
  decide,
  evolve,
};
