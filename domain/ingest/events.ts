import { z } from "zod";
import { PLATFORMS, type Environment, type Level } from "./rules.ts";

/**
 * One analytics event after validation and normalization in the API: every field present, ids and
 * timestamps decided. Projectors store these values as they are, so a replay rebuilds identical rows.
 */
export type IngestedEvent = {
  /** Server-assigned version 7 UUID whose time prefix is `timestamp`. */
  id: string;
  client_event_id: string | null;
  session_id: string;
  user_id: string | null;
  level: Level;
  source_module: string | null;
  message: string;
  screen_name: string | null;
  custom_attributes: Record<string, string>;
  environment: Environment;
  os_version: string | null;
  app_version: string | null;
  sdk_name: string | null;
  sdk_version: string | null;
  build_number: string | null;
  device_model: string | null;
  locale: string | null;
  is_dev: boolean;
  /** ISO 8601 UTC with milliseconds. */
  timestamp: string;
};

export const INGEST_MODES = ["ingest", "import"] as const;
export type IngestMode = (typeof INGEST_MODES)[number];

/**
 * The fact one accepted ingest (or import) request becomes: one INGEST message on
 * `ingest.<project>.<app>`. `mode` tells projectors how to treat a `client_event_id` they have
 * seen: `ingest` skips a duplicate received within 48 hours, `import` updates the stored event in
 * place. Batch-wide values (app, key, receipt time, country) travel once, not per event.
 */
export const eventsIngestedHeader = z.object({
  type: z.literal("EventsIngested"),
  v: z.literal(1),
  /** The batch id, also the message's `Nats-Msg-Id`. */
  id: z.string().uuid(),
  mode: z.enum(INGEST_MODES),
  team_id: z.string().uuid(),
  project_id: z.string().uuid(),
  app_id: z.string().uuid(),
  platform: z.enum(PLATFORMS),
  api_key_id: z.string().uuid(),
  received_at: z.string().datetime({ precision: 3 }),
  country_code: z.string().regex(/^[A-Z]{2}$/).nullable(),
  /**
   * Not re-validated field by field when read back: the API produced them with `normalizeEvent`,
   * and parsing tens of thousands of events a second with zod would cost the projector more than
   * the database insert. The read model's column types are the second check.
   */
  events: z.array(z.unknown()),
});

export type EventsIngested = Omit<z.infer<typeof eventsIngestedHeader>, "events"> & { events: IngestedEvent[] };

const decoder = new TextDecoder();

/** Reads an INGEST message. @throws ZodError or SyntaxError for a message that is not an EventsIngested fact */
export function decodeEventsIngested(data: Uint8Array): EventsIngested {
  return eventsIngestedHeader.parse(JSON.parse(decoder.decode(data))) as EventsIngested;
}
