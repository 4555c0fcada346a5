import { timeOrderedId } from "../shared/ids.ts";
import { digits, parseDateTime, realDate } from "../shared/instant.ts";
import { isStorableText, longerThan, truncate } from "../shared/text.ts";
import type { IngestedEvent, IngestMode } from "./events.ts";
import {
  LEVELS,
  MAX_ATTRIBUTE_KEY_CHARS,
  MAX_ATTRIBUTE_VALUE_CHARS,
  MAX_ATTRIBUTES,
  MAX_FIELD_CHARS,
  MAX_FUTURE_MS,
  MAX_INGEST_PAST_MS,
  MAX_MESSAGE_CHARS,
  PLATFORM_ENVIRONMENTS,
  type Environment,
  type Level,
  type Platform,
} from "./rules.ts";

export type NormalizeContext = { mode: IngestMode; platform: Platform; nowMs: number };

export type Normalized = { ok: true; event: IngestedEvent } | { ok: false; reason: string };

/** Thrown inside this module to stop at the first problem of an event; never escapes it. */
class Rejected {
  constructor(readonly reason: string) {}
}

/**
 * Validates one raw event and fills in what the server decides (id, default timestamp and
 * environment). Hand-written rather than zod: it runs for every event on the ingest hot path.
 */
export function normalizeEvent(raw: unknown, context: NormalizeContext): Normalized {
  try {
    return { ok: true, event: normalize(raw, context) };
  } catch (error) {
    if (error instanceof Rejected) return { ok: false, reason: error.reason };
    throw error;
  }
}

function normalize(raw: unknown, context: NormalizeContext): IngestedEvent {
  if (!isPlainObject(raw)) throw new Rejected("must be an object");
  const message = raw.message;
  if (message === undefined || message === null) throw new Rejected("message is required");
  if (typeof message !== "string" || message.trim() === "") throw new Rejected("message must be a non-empty string");
  if (longerThan(message, MAX_MESSAGE_CHARS)) throw new Rejected(`message must be at most ${MAX_MESSAGE_CHARS} characters`);
  assertStorable(message, "message");

  const level = raw.level;
  if (level === undefined || level === null) throw new Rejected("level is required");
  if (!LEVELS.includes(level as Level)) throw new Rejected(`level must be one of ${LEVELS.join(", ")}`);

  if (raw.session_id === undefined || raw.session_id === null) throw new Rejected("session_id is required");
  const sessionId = uuidField(raw.session_id, "session_id");
  const clientEventId = raw.client_event_id === undefined || raw.client_event_id === null ? null : uuidField(raw.client_event_id, "client_event_id");

  const { ms: timestampMs, iso } = timestampOf(raw.timestamp, context);
  const timestamp = iso ?? new Date(timestampMs).toISOString();
  // Fields are read one by one (not in a loop over names) so every access stays monomorphic: this
  // runs for every ingested event.
  return {
    id: timeOrderedId(timestampMs),
    client_event_id: clientEventId,
    session_id: sessionId,
    user_id: optionalString(raw.user_id, "user_id"),
    level: level as Level,
    source_module: optionalString(raw.source_module, "source_module"),
    message,
    screen_name: optionalString(raw.screen_name, "screen_name"),
    custom_attributes: attributesOf(raw.custom_attributes),
    environment: environmentOf(raw.environment, context.platform, raw.device_model),
    os_version: optionalString(raw.os_version, "os_version"),
    app_version: optionalString(raw.app_version, "app_version"),
    sdk_name: optionalString(raw.sdk_name, "sdk_name"),
    sdk_version: optionalString(raw.sdk_version, "sdk_version"),
    build_number: optionalString(raw.build_number, "build_number"),
    device_model: optionalString(raw.device_model, "device_model"),
    locale: optionalString(raw.locale, "locale"),
    is_dev: isDevOf(raw.is_dev),
    timestamp,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function uuidField(value: unknown, field: string): string {
  if (typeof value !== "string" || value.length !== 36) throw new Rejected(`${field} must be a UUID`);
  // A character scan instead of a regular expression: two UUIDs per event on the hot path.
  let upper = false;
  for (let i = 0; i < 36; i += 1) {
    const code = value.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (code !== 45) throw new Rejected(`${field} must be a UUID`);
    } else if (code >= 65 && code <= 70) upper = true;
    else if (!((code >= 48 && code <= 57) || (code >= 97 && code <= 102))) throw new Rejected(`${field} must be a UUID`);
  }
  return upper ? value.toLowerCase() : value;
}

/** Absent, null and "" all mean "not reported". */
function optionalString(value: unknown, field: string): string | null {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string") throw new Rejected(`${field} must be a string`);
  if (longerThan(value, MAX_FIELD_CHARS)) throw new Rejected(`${field} must be at most ${MAX_FIELD_CHARS} characters`);
  assertStorable(value, field);
  return value;
}

/** Apple device identifiers (`iPhone15,2`, `iPad13,4`, `Mac14,2`, `Watch6,1`) name their family. */
const APPLE_FAMILIES: [string, Environment][] = [["ipad", "ipados"], ["mac", "macos"], ["imac", "macos"], ["watch", "watchos"]];

function environmentOf(value: unknown, platform: Platform, deviceModel: unknown): Environment {
  const allowed = PLATFORM_ENVIRONMENTS[platform];
  if (value === undefined || value === null || value === "") {
    // The field is optional: a platform with a single environment implies it, and an apple event
    // is placed by its device model, iOS (by far the most common) when that says nothing.
    if (allowed.length === 1) return allowed[0]!;
    const model = typeof deviceModel === "string" ? deviceModel.toLowerCase() : "";
    return APPLE_FAMILIES.find(([prefix]) => model.startsWith(prefix))?.[1] ?? "ios";
  }
  if (!allowed.includes(value as Environment)) throw new Rejected(`environment must be one of ${allowed.join(", ")} for ${platform} apps`);
  return value as Environment;
}

function isDevOf(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") throw new Rejected("is_dev must be a boolean");
  return value;
}

/** The event time in ms, and the input itself when it is already in the stored form. */
function timestampOf(value: unknown, { mode, nowMs }: NormalizeContext): { ms: number; iso: string | null } {
  if (value === undefined || value === null) return { ms: nowMs, iso: null };
  const canonical = typeof value === "string" && isCanonical(value);
  const ms = canonical ? canonicalMs : typeof value === "string" ? parseDateTime(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new Rejected("timestamp must be an ISO 8601 date-time");
  if (ms > nowMs + MAX_FUTURE_MS) throw new Rejected("timestamp is more than 5 minutes in the future");
  if (mode === "ingest" && ms < nowMs - MAX_INGEST_PAST_MS) throw new Rejected("timestamp is more than 30 days in the past");
  if (ms < 0) throw new Rejected("timestamp must not be before 1970-01-01");
  return { ms, iso: canonical ? (value as string) : null };
}

let canonicalMs = 0;

/**
 * Whether `value` is exactly the form toISOString writes (`YYYY-MM-DDTHH:MM:SS.mmmZ`), the one
 * SDKs send, with real field values (no Feb 30, no 24:00); sets `canonicalMs`. Read digit by digit,
 * because Date.parse plus the round trip through toISOString cost more than the rest of an event.
 * Such a value is stored as it came.
 */
function isCanonical(value: string): boolean {
  if (value.length !== 24 || value[4] !== "-" || value[7] !== "-" || value[10] !== "T" || value[13] !== ":" || value[16] !== ":" || value[19] !== "." || value[23] !== "Z") {
    return false;
  }
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  const hour = digits(value, 11, 2);
  const minute = digits(value, 14, 2);
  const second = digits(value, 17, 2);
  const milli = digits(value, 20, 3);
  if (year < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || milli < 0 || !realDate(value)) return false;
  canonicalMs = Date.UTC(year, month - 1, day, hour, minute, second, milli);
  // Date.UTC maps years 0-99 to 1900-1999; those are far outside every window anyway.
  return year >= 100;
}

/**
 * String values are kept (truncated to 200 characters). Other values are not a reason to lose the
 * event: numbers and booleans become their string form, arrays and objects their JSON text
 * (truncated like any string), and null drops the key.
 */
function attributesOf(value: unknown): Record<string, string> {
  // A null prototype: a key named "__proto__" stays an ordinary key.
  const attributes: Record<string, string> = Object.create(null);
  if (value === undefined || value === null) return attributes;
  if (!isPlainObject(value)) throw new Rejected("custom_attributes must be an object");
  const keys = Object.keys(value);
  if (keys.length > MAX_ATTRIBUTES) throw new Rejected(`custom_attributes must have at most ${MAX_ATTRIBUTES} keys`);
  for (const key of keys) {
    if (key.length === 0 || longerThan(key, MAX_ATTRIBUTE_KEY_CHARS)) {
      throw new Rejected(`custom_attributes keys must be 1 to ${MAX_ATTRIBUTE_KEY_CHARS} characters`);
    }
    assertStorable(key, "custom_attributes keys");
    const item = value[key];
    if (item === null || item === undefined) continue;
    const text = typeof item === "string" ? item : typeof item === "object" ? JSON.stringify(item) : String(item);
    const kept = truncate(text, MAX_ATTRIBUTE_VALUE_CHARS);
    // Checked after truncation: what is cut off is never stored, so it cannot cost the event.
    assertStorable(kept, `custom_attributes.${key}`);
    attributes[key] = kept;
  }
  return attributes;
}

/**
 * Postgres cannot store NUL in text or jsonb, nor an unpaired UTF-16 surrogate (not valid
 * Unicode): such an event would fail the projector's statement and park its whole fact, losing
 * the valid events with it. It is rejected here instead, with a reason the sender can act on;
 * stripping would silently store something other than what was sent.
 */
function assertStorable(value: string, field: string): void {
  if (!isStorableText(value)) throw new Rejected(`${field} must not contain NUL characters or unpaired UTF-16 surrogates`);
}
