import { z } from "zod";
import { ENVIRONMENTS, LEVELS } from "../../../domain/ingest/rules.ts";
import { timestamp } from "./common.ts";
import { EXAMPLE } from "./examples.ts";

const text = z.string().nullable();

/** An event as the list shows it (SPEC, Event resource): without `project_id` and `attachments`. */
export const eventBody = z.object({
  id: z.string().uuid(),
  app_id: z.string().uuid(),
  client_event_id: z.string().nullable(),
  session_id: z.string(),
  user_id: text,
  api_key_id: z.string().uuid(),
  level: z.enum(LEVELS),
  source_module: text,
  message: z.string(),
  screen_name: text,
  custom_attributes: z.record(z.string()).describe("Values truncated to 200 characters"),
  environment: z.enum(ENVIRONMENTS),
  os_version: text,
  app_version: text,
  sdk_name: text,
  sdk_version: text,
  build_number: text,
  device_model: text,
  locale: text,
  country_code: text.describe("From the edge proxy's country header; null for backend apps"),
  is_dev: z.boolean(),
  timestamp: timestamp.describe("Client time (server time when the client sent none)"),
  received_at: timestamp,
});

/** An attachment of an event as the single-event answer lists it. */
export const eventAttachmentBody = z.object({
  id: z.string(),
  original_filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  uploaded_at: timestamp.nullable().describe("Null while the file is reserved but not yet uploaded"),
});

/** One event with its project and its non-deleted attachments (GET /v1/events/:id). */
export const eventDetailBody = eventBody.extend({
  project_id: z.string().uuid(),
  attachments: z.array(eventAttachmentBody),
});

export const eventPageBody = z.object({
  events: z.array(eventBody),
  cursor: z.string().nullable().describe("Null when has_more is false; tied to the order it was fetched in"),
  has_more: z.boolean(),
});

export const eventCountBody = z.object({
  count: z.number().int(),
  unique_users: z.number().int(),
  unique_sessions: z.number().int(),
});

/** An event as the documentation shows it. */
export const exampleEvent = {
  id: EXAMPLE.eventId,
  app_id: EXAMPLE.appId,
  client_event_id: "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910",
  session_id: EXAMPLE.sessionId,
  user_id: "user-42",
  api_key_id: EXAMPLE.keyId,
  level: "info",
  source_module: "Checkout",
  message: "purchase completed",
  screen_name: "Cart",
  custom_attributes: { plan: "yearly" },
  environment: "ios",
  os_version: "17.4",
  app_version: "2.3.0",
  sdk_name: "swift",
  sdk_version: "1.8.2",
  build_number: "230",
  device_model: "iPhone15,2",
  locale: "en_US",
  country_code: "US",
  is_dev: false,
  timestamp: EXAMPLE.at,
  received_at: "2026-11-25T12:00:00.412Z",
} satisfies z.input<typeof eventBody>;

export const exampleEventPage = { events: [exampleEvent], cursor: null, has_more: false } satisfies z.input<typeof eventPageBody>;

export const exampleEventCount = { count: 1520, unique_users: 87, unique_sessions: 240 } satisfies z.input<typeof eventCountBody>;

export const exampleEventDetail = { ...exampleEvent, project_id: EXAMPLE.projectId, attachments: [] } satisfies z.input<typeof eventDetailBody>;
