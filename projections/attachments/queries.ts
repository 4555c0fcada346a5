import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";

/**
 * An attachment as the API shows it. Two fields are resolved here, at read time, from other read
 * models, so they are right whichever arrived first and need no fact of their own:
 * - `event_id`: the event the SDK sent with the attachment's `event_client_id` in the same app
 *   (the events read model's (app_id, client_event_id) index); null until that event is stored.
 *   Should an SDK have sent the id twice (a resend after the dedup window), the latest received
 *   is the one, as an import would keep it.
 * - `user_id`: the claimer of the anonymous id the attachment was reserved under (app_users'
 *   `app_user_claims`), else the id it was reserved under.
 * - `issue_id`: the issue whose occurrence is the attachment's event (the issues read model's
 *   occurrences, matched by app and `client_event_id`); null when the event is no occurrence.
 */
export const attachmentRow = z.object({
  id: z.string(),
  project_id: z.string(),
  app_id: z.string(),
  event_client_id: z.string(),
  event_id: z.string().nullable(),
  issue_id: z.string().nullable(),
  user_id: z.string().nullable(),
  original_filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number(),
  sha256: z.string(),
  is_dev: z.boolean(),
  uploaded_at: z.string().nullable(),
  created_at: z.string(),
});
export type AttachmentRow = z.infer<typeof attachmentRow>;

const COLUMNS = sql.fragment`
  a.id, a.project_id, a.app_id, a.event_client_id, ev.id as event_id, iss.issue_id,
  coalesce(c.user_id, a.user_id) as user_id, a.original_filename, a.content_type, a.size_bytes, a.sha256,
  a.is_dev, a.uploaded_at, a.created_at`;

/** The joins behind `event_id` and `user_id`, and the app (deleted apps' attachments are not served). */
const RESOLVED = sql.fragment`
  join apps ap on ap.id = a.app_id and ap.deleted_at is null
  left join app_user_claims c on c.project_id = a.project_id and c.anonymous_id = a.user_id
  left join lateral (
    select e.id from events e
     where e.app_id = a.app_id and e.client_event_id = a.event_client_id
     order by e.received_at desc, e.id desc limit 1
  ) ev on true
  left join lateral (
    select o.issue_id from issue_occurrences o join issues i on i.id = o.issue_id and i.app_id = a.app_id
     where o.event_client_id = a.event_client_id
     order by o.timestamp, o.id limit 1
  ) iss on true`;

const detailRow = attachmentRow.extend({ team_id: z.string(), storage_key: z.string().nullable() });
export type AttachmentDetail = z.infer<typeof detailRow>;

/** A visible attachment (not deleted, its app active) with its team and where its bytes are; null otherwise. */
export const visibleAttachment = (db: CommonQueryMethods, attachmentId: string) =>
  db.maybeOne(sql.type(detailRow)`
    select ${COLUMNS}, a.team_id, a.storage_key from attachments a ${RESOLVED}
     where a.id = ${attachmentId} and a.deleted_at is null`);

const uploadTarget = z.object({
  id: z.string(),
  project_id: z.string(),
  app_id: z.string(),
  size_bytes: z.number(),
  content_type: z.string(),
  expires_at: z.string(),
  uploaded: z.boolean(),
  deleted: z.boolean(),
});
export type UploadTarget = z.infer<typeof uploadTarget>;

/** Any attachment still in the read model (deleted ones too: an upload to one is 410, not 404). */
export const attachmentForUpload = (db: CommonQueryMethods, attachmentId: string) =>
  db.maybeOne(sql.type(uploadTarget)`
    select id, project_id, app_id, size_bytes, content_type, expires_at, uploaded_at is not null as uploaded, deleted_at is not null as deleted
      from attachments where id = ${attachmentId}`);

export type AttachmentFilter = {
  /** The teams whose attachments the caller may see. */
  teamIds: readonly string[];
  projectId?: string;
  /** An event as its (app, client_event_id) pair: the attachments linked to it. */
  event?: { appId: string; clientEventId: string };
  eventClientId?: string;
  issueId?: string;
};

/** Position after the last row of the previous page, newest first; `id` breaks ties between equal creation times. */
export type AttachmentCursor = { createdAt: string; id?: string };

function cursorCondition(cursor: AttachmentCursor) {
  const at = sql.fragment`${cursor.createdAt}::timestamptz`;
  if (cursor.id === undefined) return sql.fragment`a.created_at < ${at}`;
  return sql.fragment`a.created_at <= ${at} and (a.created_at, a.id) < (${at}, ${cursor.id}::uuid)`;
}

/** One page of visible attachments, newest created first, with one row more than `limit` when more exist. */
export function listAttachments(db: CommonQueryMethods, filter: AttachmentFilter, page: { cursor?: AttachmentCursor; limit: number }) {
  const conditions = [sql.fragment`a.deleted_at is null`, sql.fragment`a.team_id = any(${sql.array(filter.teamIds, "uuid")})`];
  if (filter.projectId !== undefined) conditions.push(sql.fragment`a.project_id = ${filter.projectId}`);
  if (filter.event !== undefined) conditions.push(sql.fragment`a.event_client_id = ${filter.event.clientEventId} and a.app_id = ${filter.event.appId}`);
  if (filter.eventClientId !== undefined) conditions.push(sql.fragment`a.event_client_id = ${filter.eventClientId}`);
  if (filter.issueId !== undefined) conditions.push(sql.fragment`iss.issue_id = ${filter.issueId}`);
  if (page.cursor) conditions.push(cursorCondition(page.cursor));
  return db.any(sql.type(attachmentRow)`
    select ${COLUMNS} from attachments a ${RESOLVED}
     where ${sql.join(conditions, sql.fragment` and `)}
     order by a.created_at desc, a.id desc limit ${page.limit + 1}`);
}

const eventAttachmentRow = z.object({
  id: z.string(),
  original_filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number(),
  uploaded_at: z.string().nullable(),
});

/** The non-deleted attachments of an event, by its app and client event id, oldest first. */
export const attachmentsOfEvent = (db: CommonQueryMethods, appId: string, clientEventId: string) =>
  db.any(sql.type(eventAttachmentRow)`
    select a.id, a.original_filename, a.content_type, a.size_bytes, a.uploaded_at from attachments a
     where a.event_client_id = ${clientEventId} and a.app_id = ${appId} and a.deleted_at is null
     order by a.created_at, a.id`);

const downloadRow = z.object({
  id: z.string(),
  original_filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number(),
  storage_key: z.string(),
});
export type Downloadable = z.infer<typeof downloadRow>;

/** An attachment whose bytes may be served: uploaded, not deleted, its app active; null otherwise. */
export const downloadableAttachment = (db: CommonQueryMethods, attachmentId: string) =>
  db.maybeOne(sql.type(downloadRow)`
    select a.id, a.original_filename, a.content_type, a.size_bytes, a.storage_key from attachments a
      join apps ap on ap.id = a.app_id and ap.deleted_at is null
     where a.id = ${attachmentId} and a.deleted_at is null and a.storage_key is not null`);
