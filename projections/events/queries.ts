import { sql, type CommonQueryMethods } from "slonik";
import { z } from "zod";
import { ENVIRONMENTS, LEVELS } from "../../domain/ingest/rules.ts";

/** Whose apps a query may see: an agent key sees its team, a user every team they belong to. */
export type Viewer = { kind: "team"; teamId: string } | { kind: "member"; userId: string };

export type DataMode = "production" | "development" | "all";

export type EventFilter = {
  teamId?: string;
  projectId?: string;
  appId?: string;
  levels?: string[];
  userId?: string;
  sessionId?: string;
  environment?: string;
  screenName?: string;
  since?: Date;
  until?: Date;
  dataMode: DataMode;
};

/** Position after the last row of the previous page; `id` breaks ties between equal timestamps. */
export type EventCursor = { timestamp: string; id?: string };

const eventRow = z.object({
  id: z.string(),
  app_id: z.string(),
  client_event_id: z.string().nullable(),
  session_id: z.string(),
  user_id: z.string().nullable(),
  api_key_id: z.string(),
  level: z.enum(LEVELS),
  source_module: z.string().nullable(),
  message: z.string(),
  screen_name: z.string().nullable(),
  custom_attributes: z.record(z.string()),
  environment: z.enum(ENVIRONMENTS),
  os_version: z.string().nullable(),
  app_version: z.string().nullable(),
  sdk_name: z.string().nullable(),
  sdk_version: z.string().nullable(),
  build_number: z.string().nullable(),
  device_model: z.string().nullable(),
  locale: z.string().nullable(),
  country_code: z.string().nullable(),
  is_dev: z.boolean(),
  timestamp: z.string(),
  received_at: z.string(),
});
export type EventRow = z.infer<typeof eventRow>;

const COLUMNS = sql.fragment`
  e.id, e.app_id, e.client_event_id, e.session_id, e.user_id, e.api_key_id, e.level, e.source_module, e.message,
  e.screen_name, e.custom_attributes, e.environment, e.os_version, e.app_version, e.sdk_name, e.sdk_version,
  e.build_number, e.device_model, e.locale, e.country_code, e.is_dev, e."timestamp", e.received_at`;

/** The ids of the active apps the viewer may read, narrowed by the team/project/app filters. */
export function visibleApps(viewer: Viewer, filter: EventFilter) {
  const conditions = [sql.fragment`a.deleted_at is null`];
  if (viewer.kind === "team") conditions.push(sql.fragment`a.team_id = ${viewer.teamId}`);
  else {
    conditions.push(sql.fragment`a.team_id in (
      select m.team_id from team_members m join teams t on t.id = m.team_id and t.deleted_at is null
       where m.user_id = ${viewer.userId})`);
  }
  if (filter.teamId) conditions.push(sql.fragment`a.team_id = ${filter.teamId}`);
  if (filter.projectId) conditions.push(sql.fragment`a.project_id = ${filter.projectId}`);
  if (filter.appId) conditions.push(sql.fragment`a.id = ${filter.appId}`);
  return sql.fragment`select a.id from apps a where ${sql.join(conditions, sql.fragment` and `)}`;
}

export function eventConditions(filter: EventFilter) {
  const conditions = [];
  if (filter.levels && filter.levels.length > 0) conditions.push(sql.fragment`e.level = any(${sql.array(filter.levels, "text")})`);
  if (filter.userId !== undefined) conditions.push(sql.fragment`e.user_id = ${filter.userId}`);
  if (filter.sessionId !== undefined) conditions.push(sql.fragment`e.session_id = ${filter.sessionId}`);
  if (filter.environment !== undefined) conditions.push(sql.fragment`e.environment = ${filter.environment}`);
  if (filter.screenName !== undefined) conditions.push(sql.fragment`e.screen_name = ${filter.screenName}`);
  if (filter.since) conditions.push(sql.fragment`e."timestamp" >= ${filter.since.toISOString()}::timestamptz`);
  if (filter.until) conditions.push(sql.fragment`e."timestamp" <= ${filter.until.toISOString()}::timestamptz`);
  if (filter.dataMode === "production") conditions.push(sql.fragment`e.is_dev = false`);
  if (filter.dataMode === "development") conditions.push(sql.fragment`e.is_dev = true`);
  return conditions;
}

function cursorCondition(cursor: EventCursor, order: "asc" | "desc") {
  const after = order === "desc" ? sql.fragment`<` : sql.fragment`>`;
  const through = order === "desc" ? sql.fragment`<=` : sql.fragment`>=`;
  const at = sql.fragment`${cursor.timestamp}::timestamptz`;
  if (cursor.id === undefined) return sql.fragment`e."timestamp" ${after} ${at}`;
  // The plain bound lets the time index do the work; the row comparison breaks the tie.
  return sql.fragment`e."timestamp" ${through} ${at} and (e."timestamp", e.id) ${after} (${at}, ${cursor.id}::uuid)`;
}

/**
 * One page of events ordered by (timestamp, id), fetching limit + 1 rows so the caller knows if
 * more exist. Each visible app is read through its own walk of the (app_id, timestamp) index
 * (a lateral join) and the walks are merged, so the cost depends on the page size, not on how
 * many events the apps hold.
 */
export function listEvents(db: CommonQueryMethods, viewer: Viewer, filter: EventFilter, page: { order: "asc" | "desc"; cursor?: EventCursor; limit: number }) {
  const conditions = [sql.fragment`e.app_id = s.id`, ...eventConditions(filter)];
  if (page.cursor) conditions.push(cursorCondition(page.cursor, page.order));
  const direction = page.order === "desc" ? sql.fragment`desc` : sql.fragment`asc`;
  return db.any(sql.type(eventRow)`
    select ${COLUMNS} from (${visibleApps(viewer, filter)}) s
     cross join lateral (
       select ${COLUMNS} from events e
        where ${sql.join(conditions, sql.fragment` and `)}
        order by e."timestamp" ${direction}, e.id ${direction} limit ${page.limit + 1}
     ) e
     order by e."timestamp" ${direction}, e.id ${direction} limit ${page.limit + 1}`);
}

/**
 * One event by id, if the viewer may read its app. The id's time prefix is the event's
 * timestamp, which selects the month partition and the (app_id, timestamp) index entry, unless an
 * import changed the timestamp since: `event_retimed` then holds the current one (the subquery
 * runs first, so partitions are still pruned at execution).
 */
export function eventById(db: CommonQueryMethods, viewer: Viewer, id: string, timestamp: string) {
  return db.maybeOne(sql.type(eventRow.extend({ project_id: z.string() }))`
    select ${COLUMNS}, e.project_id from events e
     where e.app_id in (${visibleApps(viewer, { dataMode: "all" })})
       and e."timestamp" = coalesce((select r."timestamp" from event_retimed r where r.id = ${id}::uuid), ${timestamp}::timestamptz)
       and e.id = ${id}::uuid`);
}

/**
 * How many events of these apps carry `userId` (through the (app_id, user_id, timestamp) index):
 * what a claim of that id reassigns.
 */
export const countUserEvents = async (db: CommonQueryMethods, appIds: readonly string[], userId: string) =>
  appIds.length === 0
    ? 0
    : db.oneFirst(sql.type(z.object({ count: z.number() }))`
        select count(*)::bigint as count from events where app_id = any(${sql.array(appIds, "uuid")}) and user_id = ${userId}`);

const errorEventRow = z.object({
  id: z.string(),
  app_id: z.string(),
  client_event_id: z.string().nullable(),
  session_id: z.string(),
  user_id: z.string().nullable(),
  source_module: z.string().nullable(),
  message: z.string(),
  custom_attributes: z.record(z.string()),
  environment: z.enum(ENVIRONMENTS),
  app_version: z.string().nullable(),
  sdk_name: z.string().nullable(),
  sdk_version: z.string().nullable(),
  is_dev: z.boolean(),
  country_code: z.string().nullable(),
  timestamp: z.string(),
});

/**
 * A page of a project's error-level events since `since`, oldest first after `after` (keyset over
 * timestamp and id), with what issue detection decides on: what the issue scan walks. Reads
 * `events_by_app_time` of the project's apps.
 */
export const errorEventsPage = (db: CommonQueryMethods, input: { projectId: string; since: Date; after: { timestamp: string; id: string } | null; limit: number }) =>
  db.any(sql.type(errorEventRow)`
    select e.id, e.app_id, e.client_event_id, e.session_id, e.user_id, e.source_module, e.message, e.custom_attributes, e.environment,
           e.app_version, e.sdk_name, e.sdk_version, e.is_dev, e.country_code, e."timestamp"
      from events e
     where e.app_id = any(select a.id from apps a where a.project_id = ${input.projectId} and a.deleted_at is null)
       and e."timestamp" >= ${input.since.toISOString()} and e.level = 'error'
       ${input.after ? sql.fragment`and (e."timestamp", e.id) > (${input.after.timestamp}::timestamptz, ${input.after.id}::uuid)` : sql.fragment``}
     order by e."timestamp", e.id limit ${input.limit}`);

/** Projects (with their team) that have error events timed since `since`: those the hourly issue scan examines. */
export const projectsWithErrorsSince = (db: CommonQueryMethods, since: Date) =>
  db.any(sql.type(z.object({ project_id: z.string(), team_id: z.string() }))`
    select distinct a.project_id, a.team_id from apps a
     where a.deleted_at is null
       and exists (select 1 from events e where e.app_id = a.id and e."timestamp" >= ${since.toISOString()} and e.level = 'error')`);
