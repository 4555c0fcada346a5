import pino from "pino";

/** What replaces a credential in a log line. */
export const REDACTED = "[REDACTED]";

/**
 * Query parameters that carry a credential: download tokens (`t`), invitation or access tokens,
 * secrets, codes and signatures, and any name ending in `_token` or `_secret`.
 */
const SECRET_NAME = /^(?:t|token|secret|code|signature|sig|api_key|apikey|[\w.-]*_token|[\w.-]*_secret)$/i;

/** Path segments that are a credential wherever they appear: the invitation token of `/v1/invites/:token` and of the emailed `/invites/:token` link. */
const TOKEN_IN_PATH = /(\/(?:v1\/+)?invites\/+)(?!accept(?=$|[/?#\s"']))([^/?#\s"']+)/gi;

/** A `name=value` pair in a query string, wherever a URL appears in the text. */
const QUERY_PAIR = /([?&])([^=&#\s"']+)=([^&#\s"']*)/g;

/** Whether a query or route parameter of this name carries a credential. */
export function isSecretParameter(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // A malformed escape is judged as written.
  }
  return SECRET_NAME.test(decoded);
}

/**
 * `text` with every credential a URL in it carries replaced by `[REDACTED]`: values of secret
 * query parameters and invitation tokens in paths. Works on a bare URL and on free text such as
 * an error message quoting one. Throws nothing.
 */
export function redactText(text: string): string {
  return text
    .replace(TOKEN_IN_PATH, (_match, before: string) => `${before}${REDACTED}`)
    .replace(QUERY_PAIR, (match, separator: string, name: string) => (isSecretParameter(name) ? `${separator}${name}=${REDACTED}` : match));
}

/**
 * A request URL fit for a log: `redactText`, and also every path segment that the matched route
 * (`route`, e.g. `/v1/invites/:token`) declares as a parameter with a secret name. Throws nothing.
 */
export function redactUrl(url: string, route?: string): string {
  const redacted = redactText(url);
  if (route === undefined || !route.includes(":")) return redacted;
  const queryAt = redacted.search(/[?#]/);
  const path = queryAt === -1 ? redacted : redacted.slice(0, queryAt);
  const rest = queryAt === -1 ? "" : redacted.slice(queryAt);
  const patternSegments = route.split("/");
  const segments = path.split("/");
  // Only plain `:name` segments line up one to one with the URL; other shapes keep the text-level redaction.
  if (patternSegments.length !== segments.length) return redacted;
  const safe = segments.map((segment, index) => {
    const parameter = /^:(\w+)$/.exec(patternSegments[index]!)?.[1];
    return parameter !== undefined && isSecretParameter(parameter) ? REDACTED : segment;
  });
  return `${safe.join("/")}${rest}`;
}

/** The parts of a request the access log shows (Fastify's request, or a bare Node request). */
type LoggedRequest = {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  routeOptions?: { url?: string };
  socket?: { remoteAddress?: string; remotePort?: number };
};

/** The `req` of a log line: Fastify's default fields, with the URL redacted. */
function request(req: LoggedRequest) {
  return {
    method: req.method,
    url: req.url === undefined ? undefined : redactUrl(req.url, req.routeOptions?.url),
    version: req.headers?.["accept-version"],
    host: req.host,
    remoteAddress: req.ip ?? req.socket?.remoteAddress,
    remotePort: req.socket?.remotePort,
  };
}

/** The `err` of a log line: pino's standard form, with every text in it redacted (messages and stacks may quote the URL). */
function error(err: Error) {
  return redactFields(pino.stdSerializers.err(err), 0);
}

/**
 * A copy of a serialized error with its strings redacted, `cause` and other nested values
 * included. A copy, because the serializer passes an error's own fields by reference.
 */
function redactFields(value: unknown, depth: number): unknown {
  if (typeof value === "string") return redactText(value);
  if (value === null || typeof value !== "object" || depth > 4) return value;
  if (Array.isArray(value)) return value.map((item) => redactFields(item, depth + 1));
  const prototype = Object.getPrototypeOf(value);
  // Plain objects and (serialized) errors are walked; buffers, dates and other instances are logged as they are.
  const walkable = prototype === Object.prototype || prototype === null || typeof (value as { stack?: unknown }).stack === "string";
  if (!walkable) return value;
  return Object.fromEntries(Object.entries(value).map(([field, inner]) => [field, redactFields(inner, depth + 1)]));
}

/** Pino serializers for the API's logger: request URLs and errors never carry a credential into a log line. */
export const redactingSerializers = { req: request, err: error };
