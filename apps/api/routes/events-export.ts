import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { listEvents, type EventCursor, type EventFilter, type EventRow, type Viewer } from "../../../projections/events/queries.ts";
import type { ApiDeps } from "../deps.ts";
import { errorBody, TAGS } from "../schemas/common.ts";
import { eventsAccess, filterQuery, toFilter, viewerOf } from "./events.ts";

/** Events per query: large enough that the round trips vanish in the transfer, small enough to hold one page in memory. */
const PAGE_EVENTS = 2_000;

const exportQuery = filterQuery.superRefine((query, context) => {
  if (query.project_id === undefined && query.app_id === undefined) {
    context.addIssue({ code: "custom", path: ["project_id"], message: "project_id or app_id is required" });
  }
});

const ndjsonResponse = {
  description:
    "One event per line, oldest first, each with exactly the fields of an item of `GET /v1/events`; gzip-compressed (`Content-Encoding: gzip`) when the request accepts it",
  content: { "application/x-ndjson": { schema: { type: "string" } } },
};

/** The pages of a filter oldest first, by (timestamp, id) keyset: memory holds one page whatever the export's size. */
async function* pagesAfter(deps: ApiDeps, viewer: Viewer, filter: EventFilter, first: readonly EventRow[]): AsyncGenerator<string> {
  let rows = first;
  for (;;) {
    const page = rows.slice(0, PAGE_EVENTS);
    if (page.length > 0) yield page.map((row) => `${JSON.stringify(row)}\n`).join("");
    if (rows.length <= PAGE_EVENTS) return;
    const last = page[page.length - 1]!;
    const cursor: EventCursor = { timestamp: last.timestamp, id: last.id };
    rows = await listEvents(deps.pool, viewer, filter, { order: "asc", cursor, limit: PAGE_EVENTS });
  }
}

/** GET /v1/events/export (register with prefix /v1/events; the static path wins over `/:id`). */
export function eventExportRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/export",
      {
        exposeHeadRoute: false,
        schema: {
          summary: "Export the events of an app or project as NDJSON",
          description:
            "Every event matching the filters of `GET /v1/events` (`project_id` or `app_id` required; `since`/`until` bound the time range, all time when absent), " +
            "streamed oldest first as newline-delimited JSON in the field names of the events list. `npm run cli -- export` and `npm run cli -- import` use it to move " +
            "history between projects or installations.",
          tags: [TAGS.events],
          querystring: exportQuery,
          response: { 200: ndjsonResponse, 400: errorBody, 401: errorBody, 403: errorBody },
        },
        config: { access: eventsAccess },
      },
      async (request, reply) => {
        const viewer = viewerOf(request.caller);
        const filter = toFilter(request.query);
        // The first page is read before the answer starts, so a failing database is still a
        // clean error status rather than a cut-off body.
        const first = await listEvents(deps.pool, viewer, filter, { order: "asc", limit: PAGE_EVENTS });
        const body = Readable.from(pagesAfter(deps, viewer, filter, first));
        reply.header("content-type", "application/x-ndjson; charset=utf-8").header("cache-control", "no-store").header("vary", "accept-encoding");
        if (!/\bgzip\b/.test(request.headers["accept-encoding"] ?? "")) return reply.send(body);
        const gzip = createGzip();
        // A failure mid-way (the client left, the database went away) ends both streams; the
        // client sees the body cut off rather than a well-formed end.
        pipeline(body, gzip).catch((error: unknown) => request.log.warn({ err: error }, "event export ended early"));
        return reply.header("content-encoding", "gzip").send(gzip);
      },
    );
  };
}
