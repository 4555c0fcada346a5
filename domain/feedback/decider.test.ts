import { describe, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import { feedbackDecider, type FeedbackActor } from "./decider.ts";

const AT = "2026-11-25T12:00:00.000Z";
const on = { feedback_id: "f", team_id: "t", project_id: "p" };

const submitted: DomainEvent = {
  type: "FeedbackSubmitted",
  v: 1,
  ...on,
  app_id: "a",
  message: "It crashes",
  session_id: null,
  user_id: "svc_anon_1",
  submitter_name: null,
  submitter_email: null,
  is_dev: false,
  environment: "ios",
  os_version: null,
  app_version: null,
  sdk_name: null,
  sdk_version: null,
  device_model: null,
  created_at: AT,
};
const author = { type: "user" as const, id: "alice", name: "Alice" };
const commented: DomainEvent = { type: "FeedbackCommentAdded", v: 1, ...on, comment_id: "c", author, body: "Seen", created_at: AT };
const alice: FeedbackActor = { type: "user", id: "alice", moderator: false };
const bob: FeedbackActor = { type: "user", id: "bob", moderator: false };
const admin: FeedbackActor = { type: "user", id: "carol", moderator: true };
const deleted: DomainEvent = { type: "FeedbackDeleted", v: 1, ...on, deleted_at: AT };

const feedback = given(feedbackDecider);

describe("feedback decider", () => {
  it("submits once per id", () => {
    const { type: _type, v: _v, ...submission } = submitted as Extract<DomainEvent, { type: "FeedbackSubmitted" }>;
    feedback().when({ type: "SubmitFeedback", submission }).then(submitted);
    feedback(submitted).when({ type: "SubmitFeedback", submission }).thenFails("conflict");
  });

  it("moves between any two statuses and ignores a move to the same one", () => {
    feedback(submitted).when({ type: "ChangeFeedbackStatus", feedbackId: "f", status: "dismissed" }).then({ type: "FeedbackStatusChanged", v: 1, ...on, previous_status: "new", status: "dismissed" });
    const dismissed: DomainEvent = { type: "FeedbackStatusChanged", v: 1, ...on, previous_status: "new", status: "dismissed" };
    feedback(submitted, dismissed).when({ type: "ChangeFeedbackStatus", feedbackId: "f", status: "new" }).then({ type: "FeedbackStatusChanged", v: 1, ...on, previous_status: "dismissed", status: "new" });
    feedback(submitted).when({ type: "ChangeFeedbackStatus", feedbackId: "f", status: "new" }).then();
  });

  it("lets only the author edit a comment, and the author or a moderator delete it", () => {
    feedback(submitted, commented).when({ type: "EditFeedbackComment", feedbackId: "f", commentId: "c", actor: alice, body: "Fixed", at: AT }).then({ type: "FeedbackCommentEdited", v: 1, ...on, comment_id: "c", body: "Fixed", edited_at: AT });
    feedback(submitted, commented).when({ type: "EditFeedbackComment", feedbackId: "f", commentId: "c", actor: admin, body: "Fixed", at: AT }).thenFails("forbidden");
    feedback(submitted, commented).when({ type: "DeleteFeedbackComment", feedbackId: "f", commentId: "c", actor: bob, at: AT }).thenFails("forbidden");
    feedback(submitted, commented).when({ type: "DeleteFeedbackComment", feedbackId: "f", commentId: "c", actor: admin, at: AT }).then({ type: "FeedbackCommentDeleted", v: 1, ...on, comment_id: "c", deleted_at: AT });
    const gone: DomainEvent = { type: "FeedbackCommentDeleted", v: 1, ...on, comment_id: "c", deleted_at: AT };
    feedback(submitted, commented, gone).when({ type: "EditFeedbackComment", feedbackId: "f", commentId: "c", actor: alice, body: "x", at: AT }).thenFails("not_found");
  });

  it("treats deleted and unknown feedback as missing", () => {
    feedback().when({ type: "DeleteFeedback", feedbackId: "f", at: AT }).thenFails("not_found");
    feedback(submitted).when({ type: "DeleteFeedback", feedbackId: "f", at: AT }).then(deleted);
    feedback(submitted, deleted).when({ type: "AddFeedbackComment", feedbackId: "f", commentId: "c", author, body: "x", at: AT }).thenFails("not_found");
  });
});
