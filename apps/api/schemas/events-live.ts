import { exampleEvent } from "./events.ts";

/**
 * The 200 of `GET /v1/events/live` for the document: a `text/event-stream` whose messages each
 * carry one event as JSON (the fields of an item of `GET /v1/events`).
 */
export const liveStreamResponse = {
  description:
    "Server-Sent Events: `data: <event JSON>` per accepted event, blank-line separated, and `: keep-alive` comments. The first line is `retry: 3000`.",
  content: {
    "text/event-stream": {
      schema: { type: "string" },
      example: `retry: 3000\n: live\n\ndata: ${JSON.stringify(exampleEvent)}\n\n: keep-alive\n\n`,
    },
  },
};
