import type { EventsIngested } from "../ingest/events.ts";
import type { ErrorEvent } from "./decider.ts";

/** The error-level events of an ingest batch as the detector decides on them, with the batch's app and country. */
export function errorEventsOf(batch: EventsIngested): ErrorEvent[] {
  return batch.events
    .filter((event) => event.level === "error")
    .map((event) => ({
      id: event.id,
      client_event_id: event.client_event_id,
      session_id: event.session_id,
      user_id: event.user_id,
      source_module: event.source_module,
      message: event.message,
      custom_attributes: event.custom_attributes,
      environment: event.environment,
      app_version: event.app_version,
      sdk_name: event.sdk_name,
      sdk_version: event.sdk_version,
      is_dev: event.is_dev,
      timestamp: event.timestamp,
      app_id: batch.app_id,
      country_code: batch.country_code,
    }));
}
