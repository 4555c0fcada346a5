import type { DomainEvent } from "../events.ts";
import type { IngestedEvent } from "../ingest/events.ts";
import type { Decider } from "../shared/decider.ts";
import { forbidden, invalid, notFound } from "../shared/errors.ts";
import { derivedId } from "../shared/ids.ts";
import { eventTypeGuard } from "../shared/event-types.ts";
import { issueEvents, type IssueCommentAuthor, type IssueDigestPrepared, type IssueFact } from "./events.ts";
import { groupingOf } from "./fingerprint.ts";
import { BURST_WINDOW_MS, scopedFingerprint } from "./rules.ts";
import { canMove, type IssueStatus, type RequestableStatus } from "./status.ts";
import { isNewerVersion } from "./version.ts";

/** One issue as decisions need it. */
export type IssueSummary = {
  teamId: string;
  appId: string;
  isDev: boolean;
  title: string;
  status: IssueStatus;
  resolvedAtVersion: string | null;
};

/**
 * The state of a project's issues subject as one decision needs it. A project may hold many
 * issues and sessions, so the read model hands over only what the command names: the issues of
 * the fingerprints in a batch, and the occurrences of its sessions (issues-decision-state in
 * projections/issues). Folding facts keeps all three right, which is also how the tests build it.
 */
export type IssuesState = {
  /** scopedFingerprint → issue id. */
  fingerprints: Record<string, string>;
  issues: Record<string, IssueSummary>;
  /** session id → the issues it already has an occurrence of, with that occurrence's event time. */
  sessions: Record<string, { issueId: string; timestamp: string }[]>;
  /** The comments a command names. */
  comments: Record<string, IssueCommentSummary>;
  /** The end of the project's last digest period sent (only a digest decision loads it). */
  digestedUntil?: string | null;
};

export type IssueCommentSummary = { issueId: string; authorType: "user" | "api_key"; authorId: string; deleted: boolean };

/** Who acts on a comment; `moderator`: a team admin or owner, who may delete anyone's. */
export type CommentActor = { type: "user" | "api_key"; id: string; moderator: boolean };

/** An error event as the detector sees it: the ingested event with its batch's app and country. */
export type ErrorEvent = Pick<
  IngestedEvent,
  "id" | "client_event_id" | "session_id" | "user_id" | "source_module" | "message" | "custom_attributes" | "environment" | "app_version" | "sdk_name" | "sdk_version" | "is_dev" | "timestamp"
> & { app_id: string; country_code: string | null };

export type IssueCommand =
  | { type: "DetectErrors"; projectId: string; teamId: string; events: ErrorEvent[]; imported: boolean; now: string }
  | { type: "ChangeIssueStatus"; projectId: string; issueId: string; to: RequestableStatus; resolvedAtVersion?: string | null; now: string }
  | { type: "MergeIssues"; projectId: string; targetIssueId: string; sourceIssueId: string; now: string }
  | { type: "AddIssueComment"; projectId: string; issueId: string; commentId: string; author: IssueCommentAuthor; body: string; now: string }
  | { type: "EditIssueComment"; projectId: string; issueId: string; commentId: string; actor: CommentActor; body: string; now: string }
  | { type: "DeleteIssueComment"; projectId: string; issueId: string; commentId: string; actor: CommentActor; now: string }
  | { type: "PrepareDigest"; projectId: string; digest: Omit<IssueDigestPrepared, "type" | "v" | "project_id"> };

const initialState: IssuesState = { fingerprints: {}, issues: {}, sessions: {}, comments: {} };

const byTime = (a: ErrorEvent, b: ErrorEvent) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The issue a burst in this session belongs to: the one of the session's first error, when `event` is within the window of it. */
function burstIssue(state: IssuesState, event: ErrorEvent): string | null {
  const candidates = (state.sessions[event.session_id] ?? []).filter(({ issueId }) => {
    const issue = state.issues[issueId];
    return issue !== undefined && issue.appId === event.app_id && issue.isDev === event.is_dev;
  });
  const first = candidates.reduce<{ issueId: string; timestamp: string } | null>((earliest, next) => (earliest === null || next.timestamp < earliest.timestamp ? next : earliest), null);
  if (first === null) return null;
  const elapsed = Date.parse(event.timestamp) - Date.parse(first.timestamp);
  return elapsed >= 0 && elapsed <= BURST_WINDOW_MS ? first.issueId : null;
}

/** The facts of one error event, folding each into the state as it goes, so the next event sees them. */
function detectOne(state: IssuesState, command: Extract<IssueCommand, { type: "DetectErrors" }>, event: ErrorEvent, facts: DomainEvent[]): IssuesState {
  const { projectId, teamId, imported, now } = command;
  const apply = (fact: DomainEvent) => {
    facts.push(fact);
    state = evolve(state, fact);
  };
  const grouping = groupingOf(event);
  let issueId = state.fingerprints[scopedFingerprint(event.app_id, event.is_dev, grouping.fingerprint)];
  if (issueId === undefined) {
    const burst = burstIssue(state, event);
    if (burst !== null) {
      issueId = burst;
      apply({ type: "IssueFingerprintAliased", v: 1, issue_id: burst, project_id: projectId, fingerprint: grouping.fingerprint, aliased_at: now });
    } else {
      issueId = derivedId(`issue:${projectId}:${event.id}`);
      apply({
        type: "IssueOpened",
        v: 1,
        issue_id: issueId,
        project_id: projectId,
        team_id: teamId,
        app_id: event.app_id,
        is_dev: event.is_dev,
        fingerprint: grouping.fingerprint,
        title: grouping.title,
        source_module: event.source_module,
        event_id: event.id,
        imported,
        opened_at: now,
      });
    }
  }
  if ((state.sessions[event.session_id] ?? []).some((occurrence) => occurrence.issueId === issueId)) return state;
  apply({
    type: "IssueOccurrenceRecorded",
    v: 1,
    occurrence_id: derivedId(`occurrence:${issueId}:${event.session_id}`),
    issue_id: issueId,
    project_id: projectId,
    event_id: event.id,
    event_client_id: event.client_event_id,
    session_id: event.session_id,
    user_id: event.user_id,
    app_version: event.app_version,
    sdk_name: event.sdk_name,
    sdk_version: event.sdk_version,
    environment: event.environment,
    country_code: event.country_code,
    timestamp: event.timestamp,
    recorded_at: now,
  });
  // History (an import) records occurrences but never overrides a status a person set since.
  const issue = state.issues[issueId];
  if (imported || issue === undefined) return state;
  const about = { issue_id: issueId, project_id: projectId, team_id: issue.teamId, app_id: issue.appId, is_dev: issue.isDev, title: issue.title };
  if (issue.status === "resolved" && issue.resolvedAtVersion !== null && event.app_version !== null && isNewerVersion(event.app_version, issue.resolvedAtVersion)) {
    apply({ type: "IssueRegressed", v: 1, ...about, resolved_at_version: issue.resolvedAtVersion, app_version: event.app_version, regressed_at: now });
  } else if (issue.status === "snoozed") {
    apply({ type: "IssueReopened", v: 1, ...about, reopened_at: now });
  }
  return state;
}

function changeStatus(state: IssuesState, command: Extract<IssueCommand, { type: "ChangeIssueStatus" }>): DomainEvent[] {
  const issue = state.issues[command.issueId];
  if (!issue) throw notFound("issue");
  const version = command.resolvedAtVersion?.trim() ?? "";
  if (command.to === "resolved" && version === "") throw invalid("resolved_at_version: required when status is resolved");
  if (!canMove(issue.status, command.to)) throw invalid(`status: an issue cannot move from ${issue.status} to ${command.to}`);
  const resolvedAtVersion = command.to === "resolved" ? version : command.to === "new" ? null : issue.resolvedAtVersion;
  return [
    {
      type: "IssueStatusChanged",
      v: 1,
      issue_id: command.issueId,
      project_id: command.projectId,
      team_id: issue.teamId,
      from: issue.status,
      to: command.to,
      resolved_at_version: resolvedAtVersion,
      snoozed_at: command.to === "snoozed" ? command.now : null,
      changed_at: command.now,
    },
  ];
}

function merge(state: IssuesState, command: Extract<IssueCommand, { type: "MergeIssues" }>): DomainEvent[] {
  if (command.sourceIssueId === command.targetIssueId) throw invalid("source_issue_id: cannot merge an issue into itself");
  const target = state.issues[command.targetIssueId];
  if (!target) throw notFound("issue");
  if (!state.issues[command.sourceIssueId]) throw invalid("source_issue_id: not an issue of this project");
  return [
    {
      type: "IssuesMerged",
      v: 1,
      target_issue_id: command.targetIssueId,
      source_issue_id: command.sourceIssueId,
      project_id: command.projectId,
      team_id: target.teamId,
      merged_at: command.now,
    },
  ];
}

type CommentCommand = Extract<IssueCommand, { type: "AddIssueComment" | "EditIssueComment" | "DeleteIssueComment" }>;

function comment(state: IssuesState, command: CommentCommand): DomainEvent[] {
  const issue = state.issues[command.issueId];
  if (!issue) throw notFound("issue");
  const about = { comment_id: command.commentId, issue_id: command.issueId, project_id: command.projectId, team_id: issue.teamId };
  if (command.type === "AddIssueComment") return [{ type: "IssueCommentAdded", v: 1, ...about, author: command.author, body: command.body, created_at: command.now }];
  const existing = state.comments[command.commentId];
  if (!existing || existing.deleted || existing.issueId !== command.issueId) throw notFound("comment");
  const isAuthor = existing.authorType === command.actor.type && existing.authorId === command.actor.id;
  if (command.type === "EditIssueComment") {
    if (!isAuthor) throw forbidden("only the author may edit a comment");
    return [{ type: "IssueCommentEdited", v: 1, ...about, body: command.body, edited_at: command.now }];
  }
  if (!isAuthor && !command.actor.moderator) throw forbidden("only the author or a team admin or owner may delete a comment");
  return [{ type: "IssueCommentDeleted", v: 1, ...about, deleted_at: command.now }];
}

function decide(state: IssuesState, command: IssueCommand): DomainEvent[] {
  switch (command.type) {
    case "DetectErrors": {
      const facts: DomainEvent[] = [];
      let current = state;
      for (const event of [...command.events].sort(byTime)) current = detectOne(current, command, event, facts);
      return facts;
    }
    case "ChangeIssueStatus":
      return changeStatus(state, command);
    case "MergeIssues":
      return merge(state, command);
    case "AddIssueComment":
    case "EditIssueComment":
    case "DeleteIssueComment":
      return comment(state, command);
    case "PrepareDigest": {
      // A period without occurrences, or one already sent (a second run, a second worker), sends nothing.
      const { digest } = command;
      const sent = state.digestedUntil !== undefined && state.digestedUntil !== null && Date.parse(digest.period_end) <= Date.parse(state.digestedUntil);
      return digest.issue_count === 0 || sent ? [] : [{ type: "IssueDigestPrepared", v: 1, project_id: command.projectId, ...digest }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unknown issue command ${(unhandled as { type: string }).type}`);
    }
  }
}

const withStatus = (state: IssuesState, issueId: string, change: Partial<IssueSummary>): IssuesState => {
  const issue = state.issues[issueId];
  return issue ? { ...state, issues: { ...state.issues, [issueId]: { ...issue, ...change } } } : state;
};

/** The source's fingerprints, occurrences (one per session) and comments now belong to the target; the source is gone. */
function mergeInto(state: IssuesState, source: string, target: string): IssuesState {
  const { [source]: _gone, ...issues } = state.issues;
  const fingerprints = Object.fromEntries(Object.entries(state.fingerprints).map(([key, issueId]) => [key, issueId === source ? target : issueId]));
  const sessions = Object.fromEntries(
    Object.entries(state.sessions).map(([session, occurrences]) => {
      const hasTarget = occurrences.some((occurrence) => occurrence.issueId === target);
      const moved = occurrences.flatMap((occurrence) => (occurrence.issueId !== source ? [occurrence] : hasTarget ? [] : [{ ...occurrence, issueId: target }]));
      return [session, moved];
    }),
  );
  const comments = Object.fromEntries(Object.entries(state.comments).map(([id, comment]) => [id, comment.issueId === source ? { ...comment, issueId: target } : comment]));
  return { fingerprints, issues, sessions, comments };
}

function evolveIssue(state: IssuesState, fact: IssueFact): IssuesState {
  switch (fact.type) {
    case "IssueOpened":
      return {
        ...state,
        fingerprints: { ...state.fingerprints, [scopedFingerprint(fact.app_id, fact.is_dev, fact.fingerprint)]: fact.issue_id },
        issues: {
          ...state.issues,
          [fact.issue_id]: { teamId: fact.team_id, appId: fact.app_id, isDev: fact.is_dev, title: fact.title, status: "new", resolvedAtVersion: null },
        },
      };
    case "IssueOccurrenceRecorded":
      return {
        ...state,
        sessions: { ...state.sessions, [fact.session_id]: [...(state.sessions[fact.session_id] ?? []), { issueId: fact.issue_id, timestamp: fact.timestamp }] },
      };
    case "IssueFingerprintAliased": {
      const issue = state.issues[fact.issue_id];
      if (!issue) return state;
      return { ...state, fingerprints: { ...state.fingerprints, [scopedFingerprint(issue.appId, issue.isDev, fact.fingerprint)]: fact.issue_id } };
    }
    case "IssueRegressed":
      return withStatus(state, fact.issue_id, { status: "regressed" });
    case "IssueReopened":
      return withStatus(state, fact.issue_id, { status: "new" });
    case "IssueStatusChanged":
      return withStatus(state, fact.issue_id, { status: fact.to, resolvedAtVersion: fact.resolved_at_version });
    case "IssuesMerged":
      return mergeInto(state, fact.source_issue_id, fact.target_issue_id);
    case "IssueCommentAdded":
      return {
        ...state,
        comments: { ...state.comments, [fact.comment_id]: { issueId: fact.issue_id, authorType: fact.author.type, authorId: fact.author.id, deleted: false } },
      };
    case "IssueCommentEdited":
      return state;
    case "IssueCommentDeleted": {
      const existing = state.comments[fact.comment_id];
      return existing ? { ...state, comments: { ...state.comments, [fact.comment_id]: { ...existing, deleted: true } } } : state;
    }
    case "IssueDigestPrepared":
      return { ...state, digestedUntil: fact.period_end };
    default: {
      const unhandled: never = fact;
      throw new Error(`unknown issue fact ${(unhandled as { type: string }).type}`);
    }
  }
}

export const isIssueFact = eventTypeGuard(issueEvents);

function evolve(state: IssuesState, fact: DomainEvent): IssuesState {
  return isIssueFact(fact) ? evolveIssue(state, fact) : state;
}

/** Error grouping and the manual workflow of a project's issues (projections/issues/README.md has the rules). */
export const issuesDecider: Decider<IssuesState, IssueCommand, DomainEvent> = { initialState, decide, evolve };
