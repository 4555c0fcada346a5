/** The limits and vocabularies of ingested events (SPEC: Ingest, Import, Limits). */

export const PLATFORMS = ["apple", "android", "web", "backend"] as const;
export type Platform = (typeof PLATFORMS)[number];

export const LEVELS = ["info", "debug", "warn", "error"] as const;
export type Level = (typeof LEVELS)[number];

export const ENVIRONMENTS = ["ios", "ipados", "macos", "watchos", "android", "web", "backend"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Which `environment` values an app of each platform may send. */
export const PLATFORM_ENVIRONMENTS: Record<Platform, readonly Environment[]> = {
  apple: ["ios", "ipados", "macos", "watchos"],
  android: ["android"],
  web: ["web"],
  backend: ["backend"],
};

export const MAX_INGEST_EVENTS = 100;
export const MAX_IMPORT_EVENTS = 1_000;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export const MAX_FUTURE_MS = 5 * MINUTE;
export const MAX_INGEST_PAST_MS = 30 * DAY;

/** `client_event_id` duplicates received within this window of the first are skipped. */
export const DEDUP_WINDOW_MS = 48 * 60 * MINUTE;

export const MAX_ATTRIBUTE_VALUE_CHARS = 200;
export const MAX_ATTRIBUTES = 100;
export const MAX_ATTRIBUTE_KEY_CHARS = 128;
export const MAX_MESSAGE_CHARS = 10_000;
export const MAX_FIELD_CHARS = 255;

/** 1 MiB: the compressed and the decompressed body limit of an ingest request. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * 10 MiB: the compressed and the decompressed body limit of an import request (not in the spec).
 * 1,000 events of typical size fit many times over; 1,000 events near the field limits may not.
 */
export const MAX_IMPORT_BODY_BYTES = 10 * 1024 * 1024;
