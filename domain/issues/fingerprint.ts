import { createHash } from "node:crypto";
import type { IngestedEvent } from "../ingest/events.ts";
import { truncate } from "../shared/text.ts";

/** The SDKs' message for a failed HTTP call; such errors are told apart by request, not by text. */
export const NETWORK_MESSAGE = "sdk:network_request";

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const QUOTED = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g;
const HEX = /\b0x[0-9a-f]+\b/gi;
const NUMBER = /\d+(?:\.\d+)*/g;
const WHITESPACE = /\s+/g;

/**
 * The message with what differs between occurrences of one error replaced: UUIDs, quoted strings,
 * hex and decimal numbers; then case and whitespace folded. Order matters: a UUID or a number
 * inside quotes goes with its quotes, and a UUID's digits are not numbers.
 */
export function normalizeMessage(message: string): string {
  return message.replace(UUID, "<uuid>").replace(QUOTED, "<str>").replace(HEX, "<hex>").replace(NUMBER, "<n>").replace(WHITESPACE, " ").trim().toLowerCase();
}

/** A path segment that names one record rather than a route: numbers, UUIDs, long hex or digit-bearing tokens. */
function isIdSegment(segment: string): boolean {
  if (/^\d+$/.test(segment)) return true;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(segment)) return true;
  if (/^[0-9a-f]{16,}$/i.test(segment)) return true;
  return segment.length >= 16 && /\d/.test(segment) && /^[\w-]+$/.test(segment);
}

/** `GET api.example.com/users/:id/orders` from a method and a URL; the query and fragment are dropped. */
export function networkKey(method: string | undefined, url: string | undefined): string {
  const verb = (method ?? "").trim().toUpperCase() || "?";
  if (!url) return verb;
  let host = "";
  let path = url;
  try {
    const parsed = new URL(url);
    host = parsed.host.toLowerCase();
    path = parsed.pathname;
  } catch {
    // A relative or malformed URL: its path part is still worth templating.
    path = url.split(/[?#]/, 1)[0] ?? "";
  }
  const template = path
    .split("/")
    .map((segment) => (isIdSegment(segment) ? ":id" : segment))
    .join("/");
  return `${verb} ${host}${template}`.trim();
}

export type Grouping = { fingerprint: string; title: string };

/**
 * What groups an error event into an issue (apart from its app and dev flag, which scope every
 * fingerprint): its source module and normalized message, split further by the `_error_type`
 * attribute; a network error by method, host and templated path instead of its message.
 */
export function groupingOf(event: Pick<IngestedEvent, "message" | "source_module" | "custom_attributes">): Grouping {
  const attributes = event.custom_attributes;
  const errorType = attributes._error_type ?? "";
  const network = event.message === NETWORK_MESSAGE;
  const subject = network ? networkKey(attributes._http_method, attributes._http_url) : normalizeMessage(event.message);
  const key = JSON.stringify([event.source_module ?? "", network ? "network" : "message", subject, errorType]);
  const fingerprint = createHash("sha256").update(key).digest("hex").slice(0, 32);
  const title = network ? `${NETWORK_MESSAGE} ${subject}` : event.message;
  return { fingerprint, title: truncate(title.trim() || "(empty message)", 200) };
}
