import type { EventsIngested, IngestedEvent } from "../../domain/ingest/events.ts";
import { timeOrderedId } from "../../domain/shared/ids.ts";

const DEFAULT_TIMESTAMP = "2026-01-02T03:00:00.000Z";

/**
 * One event as the API normalized it (`domain/ingest/events.ts`): every field present, optional
 * ones null. `overrides` replace any field. Without an `id`, each call gets a fresh version 7 id
 * whose time prefix is the event's timestamp, as the API assigns them.
 */
export function anIngestedEvent(overrides: Partial<IngestedEvent> = {}): IngestedEvent {
  const timestamp = overrides.timestamp ?? DEFAULT_TIMESTAMP;
  return {
    id: overrides.id ?? timeOrderedId(Date.parse(timestamp)),
    client_event_id: null,
    session_id: "00000000-0000-4000-8000-0000000000e5",
    user_id: null,
    level: "info",
    source_module: null,
    message: "screen_view",
    screen_name: null,
    custom_attributes: {},
    environment: "ios",
    os_version: null,
    app_version: null,
    sdk_name: null,
    sdk_version: null,
    build_number: null,
    device_model: null,
    locale: null,
    is_dev: false,
    timestamp,
    ...overrides,
  };
}

/**
 * The fact one accepted ingest request becomes, holding `events`: an apple app's batch received
 * a minute after the default event time. `fields` replace any batch-wide value.
 */
export function anEventsIngested(events: IngestedEvent[], fields: Partial<Omit<EventsIngested, "events">> = {}): EventsIngested {
  return {
    type: "EventsIngested",
    v: 1,
    id: "00000000-0000-4000-8000-0000000000b1",
    mode: "ingest",
    team_id: "00000000-0000-4000-8000-0000000000a1",
    project_id: "00000000-0000-4000-8000-0000000000a2",
    app_id: "00000000-0000-4000-8000-0000000000a3",
    platform: "apple",
    api_key_id: "00000000-0000-4000-8000-0000000000a4",
    received_at: "2026-01-02T03:01:00.000Z",
    country_code: null,
    ...fields,
    events,
  };
}
