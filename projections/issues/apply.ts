import { sql, type DatabaseTransactionConnection } from "slonik";
import { decodeDomainEnvelope } from "../../domain/events.ts";
import { isIssueFact } from "../../domain/issues/decider.ts";
import type { IssueFact } from "../../domain/issues/events.ts";
import { DetectionRun, type DetectionFact } from "./detection-run.ts";
import { mergeIssues } from "./merge.ts";
import type { Fact, Projection } from "../_runtime/projection.ts";
import { recordSubjectVersion } from "../_runtime/subject-versions.ts";
import { subjectKindOf } from "../_runtime/subjects.ts";

/** Issue facts travel on `<ns>.d.issues.<project_id>`; the subject tells them apart without decoding others. */
const isIssuesSubject = (subject: string): boolean => subjectKindOf(subject) === "issues";

/** Every issue fact but the detector's runs (DetectionRun). */
async function applyFact(tx: DatabaseTransactionConnection, fact: Exclude<IssueFact, DetectionFact>): Promise<void> {
  switch (fact.type) {
    case "IssueRegressed":
      await tx.query(sql.unsafe`update issues set status = 'regressed', updated_at = ${fact.regressed_at} where id = ${fact.issue_id}`);
      return;
    case "IssueReopened":
      await tx.query(sql.unsafe`update issues set status = 'new', snoozed_at = null, updated_at = ${fact.reopened_at} where id = ${fact.issue_id}`);
      return;
    case "IssueStatusChanged":
      await tx.query(sql.unsafe`
        update issues set status = ${fact.to}, resolved_at_version = ${fact.resolved_at_version}, snoozed_at = ${fact.snoozed_at}, updated_at = ${fact.changed_at}
         where id = ${fact.issue_id}`);
      return;
    case "IssuesMerged":
      return mergeIssues(tx, fact);
    case "IssueCommentAdded":
      await tx.query(sql.unsafe`
        insert into issue_comments (id, issue_id, project_id, author_type, author_id, author_name, body, created_at, updated_at)
        values (${fact.comment_id}, ${fact.issue_id}, ${fact.project_id}, ${fact.author.type}, ${fact.author.id}, ${fact.author.name}, ${fact.body},
                ${fact.created_at}, ${fact.created_at})
        on conflict (id) do nothing`);
      return;
    case "IssueCommentEdited":
      await tx.query(sql.unsafe`update issue_comments set body = ${fact.body}, updated_at = ${fact.edited_at} where id = ${fact.comment_id}`);
      return;
    case "IssueCommentDeleted":
      await tx.query(sql.unsafe`update issue_comments set deleted_at = ${fact.deleted_at} where id = ${fact.comment_id} and deleted_at is null`);
      return;
    case "IssueDigestPrepared":
      await tx.query(sql.unsafe`
        insert into issue_digests (project_id, period_end, period_start, frequency, issue_count, occurrence_count, created_at)
        values (${fact.project_id}, ${fact.period_end}, ${fact.period_start}, ${fact.frequency}, ${fact.issue_count}, ${fact.occurrence_count}, ${fact.prepared_at})
        on conflict do nothing`);
      return;
    default: {
      const unhandled: never = fact;
      throw new Error(`issues cannot apply ${(unhandled as { type: string }).type}`);
    }
  }
}

/**
 * Moves the subject's version in the same transaction as the rows: a decision that reads the
 * version first and the rows second never decides on rows older than the version it expects.
 */
async function recordVersion(tx: DatabaseTransactionConnection, fact: Fact): Promise<void> {
  if (!isIssuesSubject(fact.subject)) return;
  await recordSubjectVersion(tx, "issue_versions", fact);
}

/** The `issues` read model, from the DOMAIN stream: issues, their fingerprints, occurrences and users (README.md). */
export const issuesProjection: Projection = {
  name: "issues",
  stream: "DOMAIN",
  migrationsDir: new URL("./migrations/", import.meta.url),
  apply: async (tx, facts) => {
    // What the detector appends is written run by run, in order with every other fact around it.
    const run = new DetectionRun();
    const lastOfSubject = new Map<string, Fact>();
    for (const fact of facts) {
      if (!isIssuesSubject(fact.subject)) continue;
      for (const event of decodeDomainEnvelope(fact.data).events) {
        if (!isIssueFact(event) || run.add(event)) continue;
        await run.flush(tx);
        await applyFact(tx, event);
      }
      lastOfSubject.set(fact.subject, fact);
    }
    await run.flush(tx);
    for (const fact of lastOfSubject.values()) await recordVersion(tx, fact);
  },
  // A parked fact still takes its place in the subject's history, so decisions can go on.
  parked: recordVersion,
};
