import type { ToolRequest } from "./openapi-tools.ts";

/** What a tool needs to call the API: one request as the agent, answered with status and JSON body. */
export type CallApi = (request: ToolRequest) => Promise<{ status: number; body: unknown }>;

const DEFAULT_WINDOW_MINUTES = 60;
const PAGE = 200;

export const investigateEventTool = {
  name: "investigate-event",
  description:
    "An event with its context: the event itself (with attachments), its session's events in order, and the same user's events in the project within " +
    "`window_minutes` (default 60) either side of it. Needs events:read.",
  inputSchema: {
    type: "object" as const,
    properties: {
      id: { type: "string", format: "uuid", description: "The event's id (from query-events)" },
      window_minutes: { type: "integer", minimum: 1, maximum: 1440, description: "Minutes either side of the event for the user's other events (default 60)" },
    },
    required: ["id"],
  },
};

/**
 * Three calls to the events routes, as the agent: the event, its session (same app, all of its
 * events oldest first), and its user's events around it across the project's apps.
 * @returns the combined answer, or the first refused call's status and body
 */
export async function investigateEvent(callApi: CallApi, args: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const found = await callApi({ method: "GET", url: `/v1/events/${encodeURIComponent(String(args.id ?? ""))}` });
  if (found.status !== 200) return found;
  const event = found.body as { app_id: string; project_id: string; session_id: string; user_id: string | null; timestamp: string };
  const minutes = Number(args.window_minutes ?? DEFAULT_WINDOW_MINUTES);
  const at = Date.parse(event.timestamp);
  const span = (Number.isFinite(minutes) && minutes > 0 ? Math.min(minutes, 1440) : DEFAULT_WINDOW_MINUTES) * 60_000;
  const session = await callApi({
    method: "GET",
    url: `/v1/events?${new URLSearchParams({ app_id: event.app_id, session_id: event.session_id, data_mode: "all", since: new Date(at - 86_400_000).toISOString(), until: new Date(at + 86_400_000).toISOString(), order: "asc", limit: String(PAGE) })}`,
  });
  if (session.status !== 200) return session;
  let around: unknown = null;
  if (event.user_id !== null) {
    const answer = await callApi({
      method: "GET",
      url: `/v1/events?${new URLSearchParams({ project_id: event.project_id, user_id: event.user_id, data_mode: "all", since: new Date(at - span).toISOString(), until: new Date(at + span).toISOString(), order: "asc", limit: String(PAGE) })}`,
    });
    if (answer.status !== 200) return answer;
    around = (answer.body as { events: unknown[] }).events;
  }
  return {
    status: 200,
    body: { event, session_timeline: (session.body as { events: unknown[] }).events, user_events_around: around, window_minutes: span / 60_000 },
  };
}
