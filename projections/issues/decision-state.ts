import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { ErrorEvent, IssuesState, IssueSummary } from "../../domain/issues/decider.ts";
import { groupingOf } from "../../domain/issues/fingerprint.ts";
import { scopedFingerprint } from "../../domain/issues/rules.ts";
import { ISSUE_STATUSES } from "../../domain/issues/status.ts";
import { subjectVersion } from "../_runtime/subject-versions.ts";

/** Stream sequence of the last fact applied on a project's issues subject (0: none). */
export async function issuesVersion(db: CommonQueryMethods, subject: string): Promise<number> {
  return subjectVersion(db, "issue_versions", subject);
}

const summaryRow = z.object({
  id: z.string(),
  team_id: z.string(),
  app_id: z.string(),
  is_dev: z.boolean(),
  title: z.string(),
  status: z.enum(ISSUE_STATUSES),
  resolved_at_version: z.string().nullable(),
});

async function summaries(db: CommonQueryMethods, projectId: string, issueIds: string[]): Promise<Record<string, IssueSummary>> {
  if (issueIds.length === 0) return {};
  const rows = await db.any(sql.type(summaryRow)`
    select id, team_id, app_id, is_dev, title, status, resolved_at_version
      from issues where project_id = ${projectId} and id = any(${sql.array(issueIds, "uuid")})`);
  return Object.fromEntries(
    rows.map((row) => [row.id, { teamId: row.team_id, appId: row.app_id, isDev: row.is_dev, title: row.title, status: row.status, resolvedAtVersion: row.resolved_at_version }]),
  );
}

/**
 * The issues decider's state for one batch of error events: the issues of the batch's
 * fingerprints, the occurrences its sessions already have, and those occurrences' issues. Exactly
 * what the batch can touch, however large the project. The caller reads the version first.
 */
export async function detectionState(db: CommonQueryMethods, projectId: string, events: readonly ErrorEvent[]): Promise<IssuesState> {
  const keys = new Map<string, { app: string; dev: boolean; fingerprint: string }>();
  for (const event of events) {
    const { fingerprint } = groupingOf(event);
    keys.set(scopedFingerprint(event.app_id, event.is_dev, fingerprint), { app: event.app_id, dev: event.is_dev, fingerprint });
  }
  const wanted = [...keys.values()];
  const fingerprintRows = await db.any(sql.type(z.object({ app_id: z.string(), is_dev: z.boolean(), fingerprint: z.string(), issue_id: z.string() }))`
    select f.app_id, f.is_dev, f.fingerprint, f.issue_id
      from issue_fingerprints f
      join unnest(${sql.array(wanted.map((key) => key.app), "uuid")}, ${sql.array(wanted.map((key) => key.dev), "bool")}, ${sql.array(wanted.map((key) => key.fingerprint), "text")})
           as w(app_id, is_dev, fingerprint)
        on w.app_id = f.app_id and w.is_dev = f.is_dev and w.fingerprint = f.fingerprint`);
  const sessionIds = [...new Set(events.map((event) => event.session_id))];
  const occurrenceRows = await db.any(sql.type(z.object({ issue_id: z.string(), session_id: z.string(), timestamp: z.string() }))`
    select issue_id, session_id, timestamp
      from issue_occurrences where project_id = ${projectId} and session_id = any(${sql.array(sessionIds, "uuid")})`);
  const state: IssuesState = { fingerprints: {}, issues: {}, sessions: {}, comments: {} };
  for (const row of fingerprintRows) state.fingerprints[scopedFingerprint(row.app_id, row.is_dev, row.fingerprint)] = row.issue_id;
  for (const row of occurrenceRows) (state.sessions[row.session_id] ??= []).push({ issueId: row.issue_id, timestamp: row.timestamp });
  state.issues = await summaries(db, projectId, [...new Set([...fingerprintRows.map((row) => row.issue_id), ...occurrenceRows.map((row) => row.issue_id)])]);
  return state;
}

const commentRow = z.object({ issue_id: z.string(), author_type: z.enum(["user", "api_key"]), author_id: z.string(), deleted: z.boolean() });

/** The state for a command on issues it names: those the project has, and the comment it names. */
export async function issueState(db: CommonQueryMethods, projectId: string, issueIds: string[], commentId?: string): Promise<IssuesState> {
  const state: IssuesState = { fingerprints: {}, issues: await summaries(db, projectId, issueIds), sessions: {}, comments: {} };
  if (commentId === undefined) return state;
  const row = await db.maybeOne(sql.type(commentRow)`
    select issue_id, author_type, author_id, deleted_at is not null as deleted from issue_comments where id = ${commentId} and project_id = ${projectId}`);
  if (row) state.comments[commentId] = { issueId: row.issue_id, authorType: row.author_type, authorId: row.author_id, deleted: row.deleted };
  return state;
}

/** The state for a digest decision: the end of the project's last digest period sent. */
export async function digestState(db: CommonQueryMethods, projectId: string): Promise<IssuesState> {
  const digestedUntil = await db.oneFirst(sql.type(z.object({ period_end: z.string().nullable() }))`
    select max(period_end) as period_end from issue_digests where project_id = ${projectId}`);
  return { fingerprints: {}, issues: {}, sessions: {}, comments: {}, digestedUntil };
}
