import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { ENVIRONMENTS, LEVELS, MAX_FIELD_CHARS } from "../../../domain/ingest/rules.ts";
import { notFound } from "../../../domain/shared/errors.ts";
import { timeOfId } from "../../../domain/shared/ids.ts";
import { countEvents, eventById, listEvents, type EventFilter, type Viewer } from "../../../projections/events/queries.ts";
import { parseTimeCursor, timePage } from "../analytics/cursor.ts";
import { checkKeyRule, type Rule } from "../auth/access.ts";
import { callerOf, requirePrincipal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { limitSchema, parseBounds } from "../listing.ts";
import { authenticateRateLimited, rateLimitIdentity } from "../rate-limit.ts";
import { chars, parse, uuid } from "../validation.ts";

/** Any member may read events; keys need events:read. */
const READ_EVENTS: Rule = { permission: "events:read", role: "member" };

const filterQuery = z.object({
  team_id: uuid.optional(),
  project_id: uuid.optional(),
  app_id: uuid.optional(),
  level: z
    .string()
    .max(100)
    .transform((value) => value.split(",").map((level) => level.trim()).filter(Boolean))
    .refine((levels) => levels.every((level) => (LEVELS as readonly string[]).includes(level)), `must be one or more of ${LEVELS.join(", ")}`)
    .optional(),
  user_id: chars(MAX_FIELD_CHARS).optional(),
  session_id: uuid.optional(),
  environment: z.enum(ENVIRONMENTS).optional(),
  screen_name: chars(MAX_FIELD_CHARS).optional(),
  since: z.string().max(64).optional(),
  until: z.string().max(64).optional(),
  data_mode: z.enum(["production", "development", "all"]).default("production"),
});

const listQuery = filterQuery.extend({
  cursor: z.string().min(1).max(100).optional(),
  limit: limitSchema,
  order: z.enum(["asc", "desc"]).default("desc"),
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

/** GET /v1/events, /v1/events/count and /v1/events/:id (register with prefix /v1/events). */
export function eventRoutes(deps: ApiDeps) {
  /**
   * Agent keys need events:read and see their team's apps; users see the apps of every team they
   * belong to, whatever their role. Every call spends a rate-limit token.
   */
  async function viewerOf(request: FastifyRequest): Promise<Viewer> {
    const caller = await authenticateRateLimited(deps, request, async () => requirePrincipal(await callerOf(deps, request)), (principal) => rateLimitIdentity(principal, request));
    checkKeyRule(caller, READ_EVENTS);
    return caller.kind === "user" ? { kind: "member", userId: caller.userId } : { kind: "team", teamId: caller.teamId };
  }

  return async (app: FastifyInstance) => {
    app.get("/", async (request) => {
      const viewer = await viewerOf(request);
      const query = parse(listQuery, request.query, "query");
      const page = { order: query.order, cursor: parseTimeCursor(query.cursor), limit: query.limit };
      const rows = await listEvents(deps.pool, viewer, toFilter(query), page);
      // The cursor is the last event's timestamp, plus its id when the next event shares it (a
      // batch sent without timestamps shares the server time), so no event is skipped.
      const { items, cursor, has_more } = timePage(rows, query.limit);
      return { events: items, cursor, has_more };
    });

    app.get("/count", async (request) => {
      const viewer = await viewerOf(request);
      const query = parse(filterQuery, request.query, "query");
      return countEvents(deps.pool, viewer, toFilter(query));
    });

    app.get("/:id", async (request) => {
      const viewer = await viewerOf(request);
      const { id } = parse(z.object({ id: uuid }), request.params, "params");
      // Event ids carry their timestamp; an id without one was never issued for an event.
      const ms = timeOfId(id);
      const event = ms === null ? null : await eventById(deps.pool, viewer, id, new Date(ms).toISOString());
      if (!event) throw notFound("event");
      return { ...event, attachments: [] };
    });
  };
}
