import { sql, type DatabaseTransactionConnection } from "slonik";
import type { z } from "zod";
import type { issuesMerged } from "../../domain/issues/events.ts";

/**
 * Applies a merge: the source's fingerprints and comments go to the target, its occurrences too
 * except those of sessions the target already has (one occurrence per session), and the
 * target's counts, first/last seen and SDK versions are computed again from its occurrences.
 * Every value comes from rows the facts wrote, so a replay yields the same target row.
 */
export async function mergeIssues(tx: DatabaseTransactionConnection, fact: z.infer<typeof issuesMerged>): Promise<void> {
  const { source_issue_id: source, target_issue_id: target } = fact;
  await tx.query(sql.unsafe`update issue_fingerprints set issue_id = ${target} where issue_id = ${source}`);
  await tx.query(sql.unsafe`
    delete from issue_occurrences s
     where s.issue_id = ${source} and exists (select 1 from issue_occurrences t where t.issue_id = ${target} and t.session_id = s.session_id)`);
  await tx.query(sql.unsafe`update issue_occurrences set issue_id = ${target} where issue_id = ${source}`);
  await tx.query(sql.unsafe`update issue_comments set issue_id = ${target} where issue_id = ${source}`);
  // The users of the occurrences kept, exactly: a dropped occurrence's user may have no other.
  await tx.query(sql.unsafe`delete from issue_users where issue_id in (${source}, ${target})`);
  await tx.query(sql.unsafe`
    insert into issue_users (issue_id, user_id)
    select distinct ${target}::uuid, user_id from issue_occurrences where issue_id = ${target} and user_id is not null`);
  await tx.query(sql.unsafe`
    update issues i set
      occurrence_count = (select count(*) from issue_occurrences o where o.issue_id = i.id),
      unique_user_count = (select count(*) from issue_users u where u.issue_id = i.id),
      first_seen_at = (select min(o.timestamp) from issue_occurrences o where o.issue_id = i.id),
      last_seen_at = (select max(o.timestamp) from issue_occurrences o where o.issue_id = i.id),
      first_seen_sdk_version = (select o.sdk_version from issue_occurrences o where o.issue_id = i.id order by o.timestamp, o.id limit 1),
      last_seen_sdk_version = (select o.sdk_version from issue_occurrences o where o.issue_id = i.id order by o.timestamp desc, o.id desc limit 1),
      updated_at = ${fact.merged_at}
    where i.id = ${target}`);
  await tx.query(sql.unsafe`delete from issues where id = ${source}`);
}
