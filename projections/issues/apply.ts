import { sql, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import { decodeDomainEnvelope } from "../../domain/events.ts";
import { isIssueFact } from "../../domain/issues/decider.ts";
import type { IssueFact, IssueOccurrenceRecorded } from "../../domain/issues/events.ts";
import { mergeIssues } from "./merge.ts";
import type { Fact, Projection } from "../_runtime/projection.ts";
import { recordSubjectVersion } from "../_runtime/subject-versions.ts";

/** Issue facts travel on `<ns>.d.issues.<project_id>`; the subject tells them apart without decoding others. */
const isIssuesSubject = (subject: string): boolean => subject.split(".", 3)[2] === "issues";

async function recordOccurrence(tx: DatabaseTransactionConnection, fact: IssueOccurrenceRecorded): Promise<void> {
  const inserted = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    insert into issue_occurrences (id, issue_id, project_id, event_id, event_client_id, session_id, user_id, app_version, sdk_name,
                                   sdk_version, environment, country_code, timestamp, created_at)
    values (${fact.occurrence_id}, ${fact.issue_id}, ${fact.project_id}, ${fact.event_id}, ${fact.event_client_id}, ${fact.session_id},
            ${fact.user_id}, ${fact.app_version}, ${fact.sdk_name}, ${fact.sdk_version}, ${fact.environment}, ${fact.country_code},
            ${fact.timestamp}, ${fact.recorded_at})
    on conflict do nothing
    returning id`);
  if (!inserted) return;
  const newUser =
    fact.user_id !== null &&
    (await tx.maybeOne(sql.type(z.object({ user_id: z.string() }))`
      insert into issue_users (issue_id, user_id) values (${fact.issue_id}, ${fact.user_id}) on conflict do nothing returning user_id`)) !== null;
  // First and last seen follow the occurrences' event times, whatever order they arrive in.
  await tx.query(sql.unsafe`
    update issues set
      occurrence_count = occurrence_count + 1,
      unique_user_count = unique_user_count + ${newUser ? 1 : 0},
      first_seen_sdk_version = case when first_seen_at is null or ${fact.timestamp}::timestamptz < first_seen_at then ${fact.sdk_version} else first_seen_sdk_version end,
      first_seen_at = least(first_seen_at, ${fact.timestamp}::timestamptz),
      last_seen_sdk_version = case when last_seen_at is null or ${fact.timestamp}::timestamptz >= last_seen_at then ${fact.sdk_version} else last_seen_sdk_version end,
      last_seen_at = greatest(last_seen_at, ${fact.timestamp}::timestamptz),
      updated_at = ${fact.recorded_at}
    where id = ${fact.issue_id}`);
}

async function applyFact(tx: DatabaseTransactionConnection, fact: IssueFact): Promise<void> {
  switch (fact.type) {
    case "IssueOpened":
      await tx.query(sql.unsafe`
        insert into issues (id, project_id, team_id, app_id, is_dev, status, title, source_module, created_at, updated_at)
        values (${fact.issue_id}, ${fact.project_id}, ${fact.team_id}, ${fact.app_id}, ${fact.is_dev}, 'new', ${fact.title}, ${fact.source_module},
                ${fact.opened_at}, ${fact.opened_at})
        on conflict (id) do nothing`);
      await tx.query(sql.unsafe`
        insert into issue_fingerprints (app_id, is_dev, fingerprint, project_id, issue_id, created_at)
        values (${fact.app_id}, ${fact.is_dev}, ${fact.fingerprint}, ${fact.project_id}, ${fact.issue_id}, ${fact.opened_at})
        on conflict do nothing`);
      return;
    case "IssueOccurrenceRecorded":
      return recordOccurrence(tx, fact);
    case "IssueFingerprintAliased":
      await tx.query(sql.unsafe`
        insert into issue_fingerprints (app_id, is_dev, fingerprint, project_id, issue_id, created_at)
        select app_id, is_dev, ${fact.fingerprint}, project_id, id, ${fact.aliased_at} from issues where id = ${fact.issue_id}
        on conflict do nothing`);
      return;
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
    for (const fact of facts) {
      if (!isIssuesSubject(fact.subject)) continue;
      const envelope = decodeDomainEnvelope(fact.data);
      for (const event of envelope.events) if (isIssueFact(event)) await applyFact(tx, event);
      await recordVersion(tx, fact);
    }
  },
  // A parked fact still takes its place in the subject's history, so decisions can go on.
  parked: recordVersion,
};
