import type { EventsIngested, IngestedEvent } from "../ingest/events.ts";
import { longerThan } from "../shared/text.ts";

/** Step names longer than this are not steps: every stored value must fit an index entry. */
const MAX_STEP_NAME_CHARS = 255;

/** A funnel event as the read model stores it; every value comes from the ingest fact. */
export type FunnelEventRow = {
  id: string;
  project_id: string;
  app_id: string;
  client_event_id: string | null;
  session_id: string;
  user_id: string | null;
  step_name: string;
  screen_name: string | null;
  environment: string;
  app_version: string | null;
  os_version: string | null;
  device_model: string | null;
  is_dev: boolean;
  timestamp: string;
  received_at: string;
};

/** The `<step_name>` of a `step:<step_name>` message, or null for any other message. */
export function parseStepMessage(message: string): string | null {
  if (!message.startsWith("step:")) return null;
  const name = message.slice(5);
  return name.length > 0 && !longerThan(name, MAX_STEP_NAME_CHARS) ? name : null;
}

/** The funnel event an ingested event stands for, or null when it is not a step call. */
export function funnelEventOf(batch: EventsIngested, event: IngestedEvent): FunnelEventRow | null {
  const stepName = parseStepMessage(event.message);
  if (stepName === null) return null;
  return {
    id: event.id,
    project_id: batch.project_id,
    app_id: batch.app_id,
    client_event_id: event.client_event_id,
    session_id: event.session_id,
    user_id: event.user_id,
    step_name: stepName,
    screen_name: event.screen_name,
    environment: event.environment,
    app_version: event.app_version,
    os_version: event.os_version,
    device_model: event.device_model,
    is_dev: event.is_dev,
    timestamp: event.timestamp,
    received_at: batch.received_at,
  };
}
