import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { LEVELS } from "../../../domain/ingest/rules.ts";
import { invalid, notFound } from "../../../domain/shared/errors.ts";
import { timeOfId } from "../../../domain/shared/ids.ts";
import { attachmentsOfEvent } from "../../../projections/attachments/queries.ts";
import { countEvents, EXACT_DISTINCT_UP_TO } from "../../../projections/events/count.ts";
import { eventSeries, SERIES_INTERVALS } from "../../../projections/events/series.ts";
import { eventById, listEvents, type EventFilter, type Viewer } from "../../../projections/events/queries.ts";
import { parseTimeCursor, timePage } from "../analytics/cursor.ts";
import { environmentFilter, scopeFields, textFilter } from "../analytics/params.ts";
import { team, type Rule } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { cursorParam, dataModeParam, limitParam, parseBounds, sinceParam, untilParam } from "../listing.ts";
import { idParams, TAGS } from "../schemas/common.ts";
import { eventCountBody, eventDetailBody, eventPageBody, exampleEventCount, exampleEventDetail, exampleEventPage } from "../schemas/events.ts";
import { uuid } from "../validation.ts";

/** Any member may read events; keys need events:read. Every call spends a rate-limit token. */
const READ_EVENTS: Rule = { permission: "events:read", role: "member" };
export const eventsAccess = team(READ_EVENTS, { rateLimited: true });
const tags = [TAGS.events];

export const filterQuery = z.object({
  ...scopeFields,
  level: z
    .string()
    .max(100)
    .transform((value) => value.split(",").map((level) => level.trim()).filter(Boolean))
    .refine((levels) => levels.every((level) => (LEVELS as readonly string[]).includes(level)), `must be one or more of ${LEVELS.join(", ")}`)
    .optional()
    .describe(`One level or a comma list of ${LEVELS.join(", ")}`),
  user_id: textFilter,
  session_id: uuid.optional(),
  environment: environmentFilter,
  screen_name: textFilter.describe("Exact screen name"),
  since: sinceParam,
  until: untilParam,
  data_mode: dataModeParam,
});

const listQuery = filterQuery.extend({
  cursor: cursorParam,
  limit: limitParam(200, 50),
  order: z.enum(["asc", "desc"]).default("desc").describe("By timestamp; a cursor is tied to the order it was fetched in"),
});

export function toFilter(query: z.infer<typeof filterQuery>): EventFilter {
  return {
    teamId: query.team_id,
    projectId: query.project_id,
    appId: query.app_id,
    levels: query.level,
    userId: query.user_id,
    sessionId: query.session_id,
    environment: query.environment,
    screenName: query.screen_name,
    ...parseBounds(query),
    dataMode: query.data_mode,
  };
}

/**
 * The count's answer: `count` is always exact; the distinct counts are estimates above a window
 * size, and say so (projections/events/count.ts, docs/decisions.md).
 */
const countBody = eventCountBody.extend({
  estimated: z
    .boolean()
    .describe(
      `true when unique_users and unique_sessions are estimates (HyperLogLog, about 0.8 % standard error; a claim or an import that changed user ids may make them over-count): windows of more than ${EXACT_DISTINCT_UP_TO.toLocaleString("en")} events without a level, environment, screen, user or session filter`,
    ),
});

/** Buckets a series answers at most: 31 days of hours, or a long window of days. */
export const MAX_SERIES_BUCKETS = 744;
const BUCKET_MS = { hour: 3_600_000, day: 86_400_000 } as const;
const DEFAULT_SERIES_MS = 24 * 3_600_000;

const seriesQuery = filterQuery.extend({
  interval: z.enum(SERIES_INTERVALS).default("hour").describe("UTC hours or UTC days"),
});

const seriesBody = z.object({
  interval: z.enum(SERIES_INTERVALS),
  since: z.string().describe("The window's start (ISO 8601); default 24 hours ago"),
  until: z.string().describe("The window's end (ISO 8601); default now"),
  buckets: z
    .array(z.object({ start: z.string().describe("The bucket's first instant (UTC, ISO 8601)"), count: z.number().int() }))
    .describe("Every bucket the window touches, oldest first, including those without events (count 0); the first and last are cut by the window"),
});

/** Agent keys see their team's apps; users see the apps of every team they belong to, whatever their role. */
export const viewerOf = (caller: Principal): Viewer => (caller.kind === "user" ? { kind: "member", userId: caller.userId } : { kind: "team", teamId: caller.teamId });

/** GET /v1/events, /v1/events/count, /v1/events/series and /v1/events/:id (register with prefix /v1/events). */
export function eventRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/",
      {
        schema: {
          summary: "List events",
          description: "Newest first unless `order=asc`. Filters narrow the apps the caller may read.",
          tags,
          querystring: listQuery,
          response: { 200: eventPageBody },
          examples: { 200: exampleEventPage },
        },
        config: { access: eventsAccess },
      },
      async (request) => {
        const { query } = request;
        const page = { order: query.order, cursor: parseTimeCursor(query.cursor), limit: query.limit };
        const rows = await listEvents(deps.pool, viewerOf(request.caller), toFilter(query), page);
        // The cursor is the last event's timestamp, plus its id when the next event shares it (a
        // batch sent without timestamps shares the server time), so no event is skipped.
        const { items, cursor, has_more } = timePage(rows, query.limit);
        return { events: [...items], cursor, has_more };
      },
    );

    app.get(
      "/count",
      {
        schema: {
          summary: "Count events, their users and sessions",
          description: "`count` is exact. Over large windows `unique_users` and `unique_sessions` are estimated, and `estimated` is true.",
          tags,
          querystring: filterQuery,
          response: { 200: countBody },
          examples: { 200: { ...exampleEventCount, estimated: false } },
        },
        config: { access: eventsAccess },
      },
      async (request) => countEvents(deps.pool, viewerOf(request.caller), toFilter(request.query)),
    );

    app.get(
      "/series",
      {
        schema: {
          summary: "Count events per hour or day",
          description:
            `Exact event counts per UTC hour or day of the window (default: the last 24 hours), with the filters of the count, in one request. ` +
            `At most ${MAX_SERIES_BUCKETS} buckets: a longer window takes interval=day.`,
          tags,
          querystring: seriesQuery,
          response: { 200: seriesBody },
          examples: { 200: { interval: "hour", since: "2026-03-01T10:30:00.000Z", until: "2026-03-01T12:10:00.000Z", buckets: [{ start: "2026-03-01T10:00:00Z", count: 12 }, { start: "2026-03-01T11:00:00Z", count: 40 }, { start: "2026-03-01T12:00:00Z", count: 0 }] } },
        },
        config: { access: eventsAccess },
      },
      async (request) => {
        const { interval } = request.query;
        const filter = toFilter(request.query);
        const until = filter.until ?? new Date();
        const since = filter.since ?? new Date(until.getTime() - DEFAULT_SERIES_MS);
        if (since.getTime() > until.getTime()) throw invalid("since: must not be after until");
        const width = BUCKET_MS[interval];
        const first = Math.floor(since.getTime() / width) * width;
        const buckets = Math.floor(until.getTime() / width) - first / width + 1;
        if (buckets > MAX_SERIES_BUCKETS) throw invalid(`interval: ${buckets} buckets of a ${interval}; at most ${MAX_SERIES_BUCKETS}: use a shorter window or interval=day`);
        const counted = new Map((await eventSeries(deps.pool, viewerOf(request.caller), { ...filter, since, until }, interval)).map((row) => [row.start, row.count]));
        const startOf = (index: number) => new Date(first + index * width).toISOString().replace(".000Z", "Z");
        return {
          interval,
          since: since.toISOString(),
          until: until.toISOString(),
          buckets: Array.from({ length: buckets }, (_, index) => ({ start: startOf(index), count: counted.get(startOf(index)) ?? 0 })),
        };
      },
    );

    app.get(
      "/:id",
      {
        schema: {
          summary: "Get an event with its project and attachments",
          tags,
          params: idParams,
          response: { 200: eventDetailBody },
          examples: { 200: exampleEventDetail },
        },
        config: { access: eventsAccess },
      },
      async (request) => {
        const { id } = request.params;
        // Event ids carry their timestamp; an id without one was never issued for an event.
        const ms = timeOfId(id);
        const event = ms === null ? null : await eventById(deps.pool, viewerOf(request.caller), id, new Date(ms).toISOString());
        if (!event) throw notFound("event");
        // Attachments name their event by (app, client_event_id), whichever of the two arrived first.
        const attachments = event.client_event_id === null ? [] : await attachmentsOfEvent(deps.pool, event.app_id, event.client_event_id);
        return { ...event, attachments: [...attachments] };
      },
    );
  };
}
