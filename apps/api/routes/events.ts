import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { ENVIRONMENTS, LEVELS, MAX_FIELD_CHARS } from "../../../domain/ingest/rules.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { timeOfId } from "../../../domain/shared/ids.ts";
import { countEvents, eventById, listEvents, type EventFilter, type Viewer } from "../../../projections/events/queries.ts";
import { parseTimeCursor, timePage } from "../analytics/cursor.ts";
import { team, type Rule } from "../auth/access.ts";
import type { Principal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { limitParam, parseBounds } from "../listing.ts";
import { eventCountBody, eventDetailBody, eventPageBody, exampleEvent } from "../schemas/events.ts";
import { chars, uuid } from "../validation.ts";

/** Any member may read events; keys need events:read. Every call spends a rate-limit token. */
const READ_EVENTS: Rule = { permission: "events:read", role: "member" };
const access = team(READ_EVENTS, { rateLimited: true });
const tags = ["events"];

const filterQuery = z.object({
  team_id: uuid.optional(),
  project_id: uuid.optional(),
  app_id: uuid.optional(),
  level: z
    .string()
    .max(100)
    .transform((value) => value.split(",").map((level) => level.trim()).filter(Boolean))
    .refine((levels) => levels.every((level) => (LEVELS as readonly string[]).includes(level)), `must be one or more of ${LEVELS.join(", ")}`)
    .optional()
    .describe(`One level or a comma list of ${LEVELS.join(", ")}`),
  user_id: chars(MAX_FIELD_CHARS).optional(),
  session_id: uuid.optional(),
  environment: z.enum(ENVIRONMENTS).optional(),
  screen_name: chars(MAX_FIELD_CHARS).optional().describe("Exact screen name"),
  since: z.string().max(64).optional().describe("Relative (30m, 1h, 7d) or ISO 8601"),
  until: z.string().max(64).optional().describe("Relative (30m, 1h, 7d) or ISO 8601"),
  data_mode: z.enum(["production", "development", "all"]).default("production"),
});

const listQuery = filterQuery.extend({
  cursor: z.string().min(1).max(100).optional(),
  limit: limitParam(200, 50),
  order: z.enum(["asc", "desc"]).default("desc").describe("By timestamp; a cursor is tied to the order it was fetched in"),
});

function toFilter(query: z.infer<typeof filterQuery>): EventFilter {
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

/** Agent keys see their team's apps; users see the apps of every team they belong to, whatever their role. */
const viewerOf = (caller: Principal): Viewer => (caller.kind === "user" ? { kind: "member", userId: caller.userId } : { kind: "team", teamId: caller.teamId });

/** GET /v1/events, /v1/events/count and /v1/events/:id (register with prefix /v1/events). */
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
          examples: { 200: { events: [exampleEvent], cursor: null, has_more: false } },
        },
        config: { access },
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
          tags,
          querystring: filterQuery,
          response: { 200: eventCountBody },
          examples: { 200: { count: 1520, unique_users: 87, unique_sessions: 240 } },
        },
        config: { access },
      },
      async (request) => countEvents(deps.pool, viewerOf(request.caller), toFilter(request.query)),
    );

    app.get(
      "/:id",
      {
        schema: {
          summary: "Get an event with its project and attachments",
          tags,
          params: z.object({ id: uuid }),
          response: { 200: eventDetailBody },
          examples: { 200: { ...exampleEvent, project_id: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", attachments: [] } },
        },
        config: { access },
      },
      async (request) => {
        const { id } = request.params;
        // Event ids carry their timestamp; an id without one was never issued for an event.
        const ms = timeOfId(id);
        const event = ms === null ? null : await eventById(deps.pool, viewerOf(request.caller), id, new Date(ms).toISOString());
        if (!event) throw notFound("event");
        return { ...event, attachments: [] };
      },
    );
  };
}
