import { sql, type DatabaseTransactionConnection } from "slonik";
import type { IssueFact, IssueFingerprintAliased, IssueOccurrenceRecorded, IssueOpened } from "../../domain/issues/events.ts";
import { jsonRows } from "../_runtime/sql.ts";

export type DetectionFact = IssueOpened | IssueFingerprintAliased | IssueOccurrenceRecorded;

/**
 * The facts the detector appends by the hundred (openings, aliases, occurrences), collected while
 * they follow each other and written set by set: a busy project records hundreds a second, and
 * statements per fact would be the detector's limit. Within a run the sets go in the order their
 * facts depend on each other (an issue before its aliases and occurrences), which gives the rows
 * applying them one by one would; the caller flushes before any other fact.
 */
export class DetectionRun {
  #opened: IssueOpened[] = [];
  #aliased: IssueFingerprintAliased[] = [];
  #occurrences: IssueOccurrenceRecorded[] = [];

  /** Takes `fact` into the run; false for a fact of another kind, which the caller applies itself after `flush`. */
  add(fact: IssueFact): fact is DetectionFact {
    if (fact.type === "IssueOpened") this.#opened.push(fact);
    else if (fact.type === "IssueFingerprintAliased") this.#aliased.push(fact);
    else if (fact.type === "IssueOccurrenceRecorded") this.#occurrences.push(fact);
    else return false;
    return true;
  }

  async flush(tx: DatabaseTransactionConnection): Promise<void> {
    await openIssues(tx, this.#opened);
    await aliasFingerprints(tx, this.#aliased);
    await recordOccurrences(tx, this.#occurrences);
    this.#opened = [];
    this.#aliased = [];
    this.#occurrences = [];
  }
}

async function openIssues(tx: DatabaseTransactionConnection, facts: readonly IssueOpened[]): Promise<void> {
  if (facts.length === 0) return;
  await tx.query(sql.unsafe`
    with input as (
      select * from jsonb_to_recordset(${jsonRows(facts)}) as r(
        issue_id uuid, project_id uuid, team_id uuid, app_id uuid, is_dev boolean, fingerprint text, title text, source_module text, opened_at timestamptz)
    ),
    opened as (
      insert into issues (id, project_id, team_id, app_id, is_dev, status, title, source_module, created_at, updated_at)
      select issue_id, project_id, team_id, app_id, is_dev, 'new', title, source_module, opened_at, opened_at from input
      on conflict (id) do nothing
    )
    insert into issue_fingerprints (app_id, is_dev, fingerprint, project_id, issue_id, created_at)
    select app_id, is_dev, fingerprint, project_id, issue_id, opened_at from input
    on conflict do nothing`);
}

async function aliasFingerprints(tx: DatabaseTransactionConnection, facts: readonly IssueFingerprintAliased[]): Promise<void> {
  if (facts.length === 0) return;
  await tx.query(sql.unsafe`
    insert into issue_fingerprints (app_id, is_dev, fingerprint, project_id, issue_id, created_at)
    select i.app_id, i.is_dev, r.fingerprint, i.project_id, i.id, r.aliased_at
      from jsonb_to_recordset(${jsonRows(facts)}) as r(issue_id uuid, fingerprint text, aliased_at timestamptz)
      join issues i on i.id = r.issue_id
    on conflict do nothing`);
}

/**
 * Records a run of occurrence facts in one statement: the occurrences new to the read model, their
 * new users, and one update per issue of its counts and first/last seen values. A busy project
 * records hundreds of occurrences a second, so three round trips per fact would be the detector's
 * limit. The result equals applying the facts one by one in order: an occurrence already recorded
 * changes nothing, the earliest event time sets first seen (the first of equal times wins), and the
 * latest sets last seen (the last of equal times wins), whatever order they arrive in.
 */
async function recordOccurrences(tx: DatabaseTransactionConnection, facts: readonly IssueOccurrenceRecorded[]): Promise<void> {
  if (facts.length === 0) return;
  const rows = facts.map((fact, position) => ({ ...fact, position }));
  await tx.query(sql.unsafe`
    with input as (
      select * from jsonb_to_recordset(${jsonRows(rows)}) as r(
        occurrence_id uuid, issue_id uuid, project_id uuid, event_id uuid, event_client_id uuid, session_id uuid, user_id text,
        app_version text, sdk_name text, sdk_version text, environment text, country_code text, timestamp timestamptz,
        recorded_at timestamptz, position integer)
    ),
    inserted as (
      insert into issue_occurrences (id, issue_id, project_id, event_id, event_client_id, session_id, user_id, app_version, sdk_name,
                                     sdk_version, environment, country_code, timestamp, created_at)
      select occurrence_id, issue_id, project_id, event_id, event_client_id, session_id, user_id, app_version, sdk_name,
             sdk_version, environment, country_code, timestamp, recorded_at
        from input
      on conflict do nothing
      returning id
    ),
    fresh as (
      select distinct on (input.occurrence_id) input.*
        from input join inserted on inserted.id = input.occurrence_id
       order by input.occurrence_id, input.position
    ),
    new_users as (
      insert into issue_users (issue_id, user_id)
      select distinct issue_id, user_id from fresh where user_id is not null
      on conflict do nothing
      returning issue_id
    ),
    user_counts as (
      select issue_id, count(*)::integer as added from new_users group by issue_id
    ),
    per_issue as (
      select issue_id,
             count(*)::integer as added,
             min(timestamp) as first_at,
             (array_agg(sdk_version order by timestamp, position))[1] as first_sdk,
             max(timestamp) as last_at,
             (array_agg(sdk_version order by timestamp desc, position desc))[1] as last_sdk,
             (array_agg(recorded_at order by position desc))[1] as updated_at
        from fresh group by issue_id
    )
    update issues set
      occurrence_count = occurrence_count + p.added,
      unique_user_count = unique_user_count + coalesce(u.added, 0),
      first_seen_sdk_version = case when first_seen_at is null or p.first_at < first_seen_at then p.first_sdk else first_seen_sdk_version end,
      first_seen_at = least(first_seen_at, p.first_at),
      last_seen_sdk_version = case when last_seen_at is null or p.last_at >= last_seen_at then p.last_sdk else last_seen_sdk_version end,
      last_seen_at = greatest(last_seen_at, p.last_at),
      updated_at = p.updated_at
    from per_issue p left join user_counts u on u.issue_id = p.issue_id
    where issues.id = p.issue_id`);
}
