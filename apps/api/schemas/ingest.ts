import { z } from "zod";
import {
  ENVIRONMENTS,
  LEVELS,
  MAX_ATTRIBUTE_KEY_CHARS,
  MAX_ATTRIBUTE_VALUE_CHARS,
  MAX_ATTRIBUTES,
  MAX_FIELD_CHARS,
  MAX_IMPORT_EVENTS,
  MAX_INGEST_EVENTS,
  MAX_MESSAGE_CHARS,
} from "../../../domain/ingest/rules.ts";
import { EXAMPLE } from "./examples.ts";

// The request shapes below document ingest and import; they are never parsed (routes declare them
// with `documentedOnly`): domain/ingest checks each event by hand and rejects bad events one by one.

/** An optional text field of an event: absent, null and "" all mean "not reported". */
const field = z.string().max(MAX_FIELD_CHARS).nullable().optional();

/** One event as an SDK or an importer sends it (SPEC, Ingest). */
export const sentEvent = z
  .object({
    message: z.string().min(1).max(MAX_MESSAGE_CHARS),
    level: z.enum(LEVELS),
    session_id: z.string().uuid(),
    client_event_id: z
      .string()
      .uuid()
      .nullable()
      .optional()
      .describe("Deduplication id: ingest skips a repeat within 48 hours, import updates the stored event in place"),
    user_id: field,
    source_module: field,
    screen_name: field,
    custom_attributes: z
      .record(z.string())
      .nullable()
      .optional()
      .describe(
        `At most ${MAX_ATTRIBUTES} keys of 1 to ${MAX_ATTRIBUTE_KEY_CHARS} characters; values are kept as text, truncated to ${MAX_ATTRIBUTE_VALUE_CHARS} characters`,
      ),
    environment: z
      .enum(ENVIRONMENTS)
      .nullable()
      .optional()
      .describe("Allowed per app platform: apple: ios, ipados, macos, watchos; android: android; web: web; backend: backend"),
    os_version: field,
    app_version: field,
    sdk_name: field,
    sdk_version: field,
    build_number: field,
    device_model: field,
    locale: field,
    is_dev: z.boolean().nullable().optional().describe("Default false"),
    timestamp: z
      .string()
      .datetime({ offset: true })
      .nullable()
      .optional()
      .describe("ISO 8601; default the server time. Ingest: at most 30 days past; both: at most 5 minutes in the future"),
  })
  // Other fields are ignored (a client's country_code among them), not refused.
  .passthrough();

export const ingestRequest = z
  .object({
    bundle_id: z.string().optional().describe("Required for non-backend apps; must equal the app's bundle_id exactly"),
    events: z.array(sentEvent).max(MAX_INGEST_EVENTS),
  })
  .passthrough();

/** Import keys are bound to one app: a bundle_id sent is ignored. */
export const importRequest = z.object({ events: z.array(sentEvent).max(MAX_IMPORT_EVENTS) }).passthrough();

/** Why an event of the batch was rejected: `events[<index>]: <reason>`. */
const rejectedEvent = z.object({ index: z.number().int(), message: z.string() });
const errors = z.array(rejectedEvent).optional().describe("Only when rejected > 0");

export const ingestAnswer = z.object({
  accepted: z.number().int(),
  rejected: z.number().int(),
  errors,
});

export const importAnswer = z.object({
  accepted: z.number().int().describe("New events"),
  updated: z.number().int().describe("Events that replaced a stored one with the same client_event_id"),
  rejected: z.number().int(),
  errors,
});

/** An event as the documentation shows it being sent. */
export const exampleSentEvent = {
  message: "purchase completed",
  level: "info",
  session_id: EXAMPLE.sessionId,
  client_event_id: "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910",
  user_id: "user-42",
  screen_name: "Cart",
  custom_attributes: { plan: "yearly" },
  environment: "ios",
  app_version: "2.3.0",
  timestamp: EXAMPLE.at,
} satisfies z.input<typeof sentEvent>;
