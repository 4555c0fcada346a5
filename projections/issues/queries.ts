import { sql, type CommonQueryMethods, type FragmentSqlToken } from "slonik";
import { z } from "zod";
import { ISSUE_STATUSES, type IssueStatus } from "../../domain/issues/status.ts";

/** An issue as the API shows it; `project_name` is dropped by the project route. */
export const issueRow = z.object({
  id: z.string(),
  app_id: z.string(),
  project_id: z.string(),
  status: z.enum(ISSUE_STATUSES),
  title: z.string(),
  source_module: z.string().nullable(),
  is_dev: z.boolean(),
  occurrence_count: z.number(),
  unique_user_count: z.number(),
  resolved_at_version: z.string().nullable(),
  first_seen_sdk_version: z.string().nullable(),
  last_seen_sdk_version: z.string().nullable(),
  first_seen_at: z.string().nullable(),
  last_seen_at: z.string().nullable(),
  last_notified_at: z.string().nullable(),
  snoozed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  fingerprints: z.array(z.string()),
  app_name: z.string(),
  project_name: z.string(),
  team_id: z.string(),
});
export type IssueRow = z.infer<typeof issueRow>;

const COLUMNS = sql.fragment`
  i.id, i.app_id, i.project_id, i.status, i.title, i.source_module, i.is_dev, i.occurrence_count, i.unique_user_count,
  i.resolved_at_version, i.first_seen_sdk_version, i.last_seen_sdk_version, i.first_seen_at, i.last_seen_at, i.last_notified_at,
  i.snoozed_at, i.created_at, i.updated_at,
  array(select f.fingerprint from issue_fingerprints f where f.issue_id = i.id order by f.created_at, f.fingerprint) as fingerprints,
  a.name as app_name, p.name as project_name, i.team_id`;

/** Issues of deleted apps and projects are not served. */
const SCOPE = sql.fragment`
  join apps a on a.id = i.app_id and a.deleted_at is null
  join projects p on p.id = i.project_id and p.deleted_at is null`;

export type IssueFilter = {
  teamIds: readonly string[];
  projectId?: string;
  appId?: string;
  status?: IssueStatus;
  /** true, false or either. */
  isDev?: boolean;
};

/** Position after the last row of the previous page, newest last seen first. */
export type IssueCursor = { lastSeenAt: string; id: string };

/**
 * `team_id = x` for one team: Postgres 15 reads an index in order only for equality on its leading
 * column, not for `= any(array)`, even of one element.
 */
function teamIs(teamIds: readonly string[]) {
  return teamIds.length === 1 ? sql.fragment`i.team_id = ${teamIds[0]!}` : sql.fragment`i.team_id = any(${sql.array(teamIds, "uuid")})`;
}

/** The filter's conditions but the team's. */
function narrowing(filter: IssueFilter) {
  const where: FragmentSqlToken[] = [];
  if (filter.projectId !== undefined) where.push(sql.fragment`i.project_id = ${filter.projectId}`);
  if (filter.appId !== undefined) where.push(sql.fragment`i.app_id = ${filter.appId}`);
  if (filter.status !== undefined) where.push(sql.fragment`i.status = ${filter.status}`);
  if (filter.isDev !== undefined) where.push(sql.fragment`i.is_dev = ${filter.isDev}`);
  return where;
}

const conditions = (filter: IssueFilter) => [teamIs(filter.teamIds), ...narrowing(filter)];

/** Every issue has a last_seen_at from its first occurrence, recorded with it; the coalesce only orders a row caught between. */
const SEEN = sql.fragment`coalesce(i.last_seen_at, i.created_at)`;

/**
 * One page of issues, newest last seen first (then id), with one row more than `limit` when more
 * exist. The indexes issues_by_(project|team)[_status]_list hold this order (migration 003), so a
 * page reads its rows in order. Several teams without a project are read team by team, each in
 * its index order, and merged: an index walk for `team_id = any(...)` gives no order.
 */
export function listIssues(db: CommonQueryMethods, filter: IssueFilter, page: { cursor?: IssueCursor; limit: number }) {
  const after = page.cursor ? [sql.fragment`(${SEEN}, i.id) < (${page.cursor.lastSeenAt}::timestamptz, ${page.cursor.id}::uuid)`] : [];
  const pageWhere = (where: readonly FragmentSqlToken[]) => sql.fragment`
    select ${COLUMNS}, ${SEEN} as seen from issues i ${SCOPE}
     where ${sql.join([...where, ...after], sql.fragment` and `)}
     order by ${SEEN} desc, i.id desc limit ${page.limit + 1}`;
  if (filter.projectId !== undefined || filter.teamIds.length <= 1) {
    return db.any(sql.type(issueRow)`select x.* from (${pageWhere(conditions(filter))}) x`);
  }
  const perTeam = pageWhere([sql.fragment`i.team_id = t.team_id`, ...narrowing(filter)]);
  return db.any(sql.type(issueRow)`
    select x.* from unnest(${sql.array(filter.teamIds, "uuid")}) as t(team_id) cross join lateral (${perTeam}) x
     order by x.seen desc, x.id desc limit ${page.limit + 1}`);
}

/** One issue of a project, or null. */
export const issueById = (db: CommonQueryMethods, projectId: string, issueId: string) =>
  db.maybeOne(sql.type(issueRow)`select ${COLUMNS} from issues i ${SCOPE} where i.id = ${issueId} and i.project_id = ${projectId}`);

const countRow = z.object({ status: z.enum(ISSUE_STATUSES), count: z.number() });

/**
 * Issues per status. The issues are counted per (project, dev flag, status, app) from
 * issues_for_counts alone, in its order (no sort, no hash of every row); only those few groups
 * are joined to their apps and projects, to leave out deleted ones.
 */
export async function countIssues(db: CommonQueryMethods, filter: IssueFilter): Promise<Record<IssueStatus, number>> {
  const rows = await db.any(sql.type(countRow)`
    select c.status, sum(c.count)::bigint as count
      from (
        select i.project_id, i.is_dev, i.status, i.app_id, count(*) as count from issues i
         where ${sql.join(conditions(filter), sql.fragment` and `)}
         group by i.project_id, i.is_dev, i.status, i.app_id
      ) c
      join apps a on a.id = c.app_id and a.deleted_at is null
      join projects p on p.id = c.project_id and p.deleted_at is null
     group by c.status`);
  const counts = Object.fromEntries(ISSUE_STATUSES.map((status) => [status, 0])) as Record<IssueStatus, number>;
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}

export const occurrenceRow = z.object({
  id: z.string(),
  issue_id: z.string(),
  session_id: z.string(),
  user_id: z.string().nullable(),
  app_version: z.string().nullable(),
  sdk_name: z.string().nullable(),
  sdk_version: z.string().nullable(),
  environment: z.string(),
  event_id: z.string(),
  country_code: z.string().nullable(),
  timestamp: z.string(),
  created_at: z.string(),
});

/** One page of an issue's occurrences, newest first, with one row more than `limit` when more exist. */
export function occurrencesOf(db: CommonQueryMethods, issueId: string, page: { cursor?: { timestamp: string; id: string }; limit: number }) {
  const where = [sql.fragment`o.issue_id = ${issueId}`];
  if (page.cursor) where.push(sql.fragment`(o.timestamp, o.id) < (${page.cursor.timestamp}::timestamptz, ${page.cursor.id}::uuid)`);
  return db.any(sql.type(occurrenceRow)`
    select o.id, o.issue_id, o.session_id, o.user_id, o.app_version, o.sdk_name, o.sdk_version, o.environment, o.event_id,
           o.country_code, o.timestamp, o.created_at
      from issue_occurrences o
     where ${sql.join(where, sql.fragment` and `)}
     order by o.timestamp desc, o.id desc limit ${page.limit + 1}`);
}

export const issueAttachmentRow = z.object({
  id: z.string(),
  event_id: z.string(),
  original_filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number(),
  uploaded_at: z.string().nullable(),
  created_at: z.string(),
});

/**
 * An issue's attachments: those sent with the events that are its occurrences (matched, as an
 * event's own attachments are, by app and `client_event_id`), not deleted, newest first.
 */
export const attachmentsOfIssue = (db: CommonQueryMethods, issueId: string, limit: number) =>
  db.any(sql.type(issueAttachmentRow)`
    select at.id, o.event_id, at.original_filename, at.content_type, at.size_bytes, at.uploaded_at, at.created_at
      from issue_occurrences o
      join issues i on i.id = o.issue_id
      join attachments at on at.app_id = i.app_id and at.event_client_id = o.event_client_id and at.deleted_at is null
     where o.issue_id = ${issueId} and o.event_client_id is not null
     order by at.created_at desc, at.id desc limit ${limit}`);

export const commentRow = z.object({
  id: z.string(),
  issue_id: z.string(),
  author_type: z.enum(["user", "api_key"]),
  author_id: z.string(),
  author_name: z.string(),
  body: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** An issue's comments not deleted, oldest first. */
export const commentsOf = (db: CommonQueryMethods, issueId: string) =>
  db.any(sql.type(commentRow)`
    select id, issue_id, author_type, author_id, author_name, body, created_at, updated_at
      from issue_comments where issue_id = ${issueId} and deleted_at is null order by created_at, id`);

/** One comment of an issue, not deleted, or null. */
export const commentById = (db: CommonQueryMethods, issueId: string, commentId: string) =>
  db.maybeOne(sql.type(commentRow)`
    select id, issue_id, author_type, author_id, author_name, body, created_at, updated_at
      from issue_comments where id = ${commentId} and issue_id = ${issueId} and deleted_at is null`);
