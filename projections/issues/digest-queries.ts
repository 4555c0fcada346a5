import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import type { DigestPeriod } from "../../domain/issues/digest.ts";
import type { DigestIssue } from "../../domain/issues/events.ts";
import { ISSUE_STATUSES } from "../../domain/issues/status.ts";

const digestRow = z.object({ issue_id: z.string(), title: z.string(), status: z.enum(ISSUE_STATUSES), occurrences: z.number(), is_new: z.boolean() });

export type DigestContents = { issueCount: number; occurrenceCount: number; issues: DigestIssue[] };

/**
 * A project's production issues with occurrences (by event time) in `period`, busiest first, the
 * new ones (first seen in the period) marked, the first `listed` by name and all of them counted.
 * Issues last seen before the period are skipped by the (project, last seen) index; each issue's
 * occurrences are counted on its (issue, time) index.
 */
export async function digestContents(db: CommonQueryMethods, projectId: string, period: DigestPeriod, listed: number): Promise<DigestContents> {
  const rows = await db.any(sql.type(digestRow)`
    select i.id as issue_id, i.title, i.status, i.first_seen_at >= ${period.start}::timestamptz and i.first_seen_at < ${period.end}::timestamptz as is_new,
           counted.occurrences
      from issues i
      cross join lateral (
        select count(*)::integer as occurrences from issue_occurrences o
         where o.issue_id = i.id and o.timestamp >= ${period.start}::timestamptz and o.timestamp < ${period.end}::timestamptz
      ) counted
      join apps a on a.id = i.app_id and a.deleted_at is null
     where i.project_id = ${projectId} and not i.is_dev and i.last_seen_at >= ${period.start}::timestamptz and counted.occurrences > 0
     order by counted.occurrences desc, i.id`);
  return {
    issueCount: rows.length,
    occurrenceCount: rows.reduce((sum, row) => sum + row.occurrences, 0),
    issues: rows.slice(0, listed),
  };
}
