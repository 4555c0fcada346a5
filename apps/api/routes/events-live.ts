import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { unavailable } from "../../../domain/shared/errors.ts";
import { visibleAppList } from "../../../projections/events/visible-apps.ts";
import type { ApiDeps } from "../deps.ts";
import { KEEP_ALIVE_MS, LiveTail } from "../live/live-tail.ts";
import { errorBody, TAGS } from "../schemas/common.ts";
import { liveStreamResponse } from "../schemas/events-live.ts";
import { eventsAccess, filterQuery, toFilter, viewerOf } from "./events.ts";

/** Seconds a client refused for want of a free stream is asked to wait. */
const FULL_RETRY_AFTER_S = 10;

/** GET /v1/events/live (register with prefix /v1/events; the static path wins over `/:id`). */
export function eventLiveRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  const maxStreams = deps.config.liveStreamsMax;
  // Counted before the consumer opens, so a burst of connections cannot overshoot the cap.
  let reserved = 0;
  const open = new Set<LiveTail>();
  let closing = false;

  return async (app) => {
    // The server waits for open connections when it closes; a tail never ends by itself.
    app.addHook("preClose", async () => {
      closing = true;
      await Promise.all([...open].map((tail) => tail.end()));
    });

    app.get(
      "/live",
      {
        exposeHeadRoute: false,
        schema: {
          summary: "Follow new events as Server-Sent Events",
          description:
            "The events accepted from now on that match the filters of `GET /v1/events`, with the same access: one SSE message per event, its `data` an item " +
            "of the events list (JSON), within a second of the ingest's acknowledgement; imports are not followed. A comment line every " +
            `${KEEP_ALIVE_MS / 1000} s keeps the connection open. \`since\` and \`until\` are read once, when the stream opens. ` +
            `Each process serves at most \`LIVE_STREAMS_MAX\` streams at once (default 200); past that it answers 503 with \`Retry-After: ${FULL_RETRY_AFTER_S}\`. ` +
            "Nothing is replayed after a reconnect: read the gap with `GET /v1/events`.",
          tags: [TAGS.events],
          querystring: filterQuery,
          response: {
            200: liveStreamResponse,
            503: errorBody.describe(`Every live stream of this process is taken (Retry-After: ${FULL_RETRY_AFTER_S}), or the event log is unavailable`),
          },
        },
        config: { access: eventsAccess },
      },
      async (request, reply) => {
        if (reserved >= maxStreams) {
          return reply
            .code(503)
            .header("retry-after", String(FULL_RETRY_AFTER_S))
            .send({ error: `this server already serves ${maxStreams} live streams; retry later` });
        }
        reserved += 1;
        const viewer = viewerOf(request.caller);
        const filter = toFilter(request.query);
        let started = false;
        let current: LiveTail | undefined;
        try {
          await LiveTail.run(
            {
              log: deps.log,
              logger: request.log,
              filter,
              scope: { projectId: request.query.project_id, appId: request.query.app_id },
              visibleApps: () => visibleAppList(deps.pool, viewer, filter),
            },
            reply.raw,
            (tail) => {
              started = true;
              current = tail;
              open.add(tail);
              // From here the handler writes the response itself.
              reply.hijack();
              reply.raw.writeHead(200, {
                "content-type": "text/event-stream; charset=utf-8",
                "cache-control": "no-store",
                // Proxies that buffer (nginx) would hold the events back.
                "x-accel-buffering": "no",
                "x-request-id": request.id,
              });
              // Opened while the service began to shut down: the client reconnects elsewhere.
              if (closing) void tail.end();
            },
          );
        } catch (error) {
          if (!started) {
            request.log.warn({ err: error }, "a live tail could not open");
            throw unavailable("the event log cannot be followed right now; retry");
          }
          request.log.warn({ err: error }, "a live tail failed");
        } finally {
          if (current) open.delete(current);
          reserved -= 1;
        }
        return reply;
      },
    );
  };
}
