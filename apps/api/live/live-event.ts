import type { EventsIngested, IngestedEvent } from "../../../domain/ingest/events.ts";
import type { EventFilter } from "../../../projections/events/queries.ts";

/**
 * An accepted event in the shape of an item of `GET /v1/events`, built from its batch before any
 * projector stored it: every field of the list exists in the fact, the batch-wide ones once.
 */
export function liveEvent(batch: EventsIngested, event: IngestedEvent) {
  return {
    id: event.id,
    app_id: batch.app_id,
    client_event_id: event.client_event_id,
    session_id: event.session_id,
    user_id: event.user_id,
    api_key_id: batch.api_key_id,
    level: event.level,
    source_module: event.source_module,
    message: event.message,
    screen_name: event.screen_name,
    custom_attributes: event.custom_attributes,
    environment: event.environment,
    os_version: event.os_version,
    app_version: event.app_version,
    sdk_name: event.sdk_name,
    sdk_version: event.sdk_version,
    build_number: event.build_number,
    device_model: event.device_model,
    locale: event.locale,
    country_code: batch.country_code,
    is_dev: event.is_dev,
    timestamp: event.timestamp,
    received_at: batch.received_at,
  };
}

/**
 * Whether an event passes the per-event filters of `GET /v1/events` (levels, user, session,
 * environment, screen, time bounds, data mode), as `eventConditions` states them in SQL. The
 * team, project and app filters are the caller's visible apps, checked by the subject.
 */
export function matchesFilter(event: IngestedEvent, filter: EventFilter): boolean {
  if (filter.levels && filter.levels.length > 0 && !filter.levels.includes(event.level)) return false;
  if (filter.userId !== undefined && event.user_id !== filter.userId) return false;
  if (filter.sessionId !== undefined && event.session_id !== filter.sessionId) return false;
  if (filter.environment !== undefined && event.environment !== filter.environment) return false;
  if (filter.screenName !== undefined && event.screen_name !== filter.screenName) return false;
  const at = Date.parse(event.timestamp);
  if (filter.since && at < filter.since.getTime()) return false;
  if (filter.until && at > filter.until.getTime()) return false;
  if (filter.dataMode === "production" && event.is_dev) return false;
  if (filter.dataMode === "development" && !event.is_dev) return false;
  return true;
}
