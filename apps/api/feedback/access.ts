import type { CommentAuthor } from "../../../domain/feedback/events.ts";
import type { FeedbackActor } from "../../../domain/feedback/decider.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { atLeast } from "../../../domain/shared/roles.ts";
import { memberRole, userState } from "../../../projections/directory/queries.ts";
import { activeKey } from "../../../projections/directory/key-queries.ts";
import { visibleFeedback, type FeedbackRow } from "../../../projections/feedback/queries.ts";
import type { Rule } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { accessibleProject } from "../resource-access.ts";

/** Any member reads feedback; agent keys need feedback:read. */
export const READ: Rule = { permission: "feedback:read", role: "member" };
/** Any member triages and comments; agent keys need feedback:write. */
export const WRITE: Rule = { permission: "feedback:write", role: "member" };
/** Deleting a record hides what a user sent for good: team admins and owners, or agent keys with feedback:write. */
export const DELETE: Rule = { permission: "feedback:write", role: "admin" };

/**
 * A project's feedback record the caller may act on under `rule`, with the project's team;
 * 404 for missing, deleted and foreign ones alike.
 */
export async function accessibleFeedback(deps: ApiDeps, caller: Principal, projectId: string, feedbackId: string, rule: Rule): Promise<{ feedback: FeedbackRow; teamId: string }> {
  const project = await accessibleProject(deps, caller, projectId, rule);
  const feedback = await visibleFeedback(deps.pool, projectId, feedbackId);
  if (!feedback) throw notFound("feedback");
  return { feedback, teamId: project.team_id };
}

/** The author a new comment records: the user's name (their email without one), or the agent key's name. */
export async function authorOf(deps: ApiDeps, caller: Principal): Promise<CommentAuthor> {
  if (caller.kind === "user") {
    const user = await userState(deps.pool, caller.userId);
    return { type: "user", id: caller.userId, name: user.name || caller.email };
  }
  const key = await activeKey(deps.pool, caller.keyId);
  return { type: "api_key", id: caller.keyId, name: key?.name ?? caller.keyId };
}

/** Who acts on a comment: a team admin or owner may delete anyone's; a key only its own. */
export async function feedbackActorOf(deps: ApiDeps, caller: Principal, teamId: string): Promise<FeedbackActor> {
  if (caller.kind === "key") return { type: "api_key", id: caller.keyId, moderator: false };
  const role = await memberRole(deps.pool, teamId, caller.userId);
  return { type: "user", id: caller.userId, moderator: role !== null && atLeast(role, "admin") };
}
