/**
 * What a failed decision or request is, as a stable code: the domain names the failure, the API's
 * one error handler (`apps/api/plugins/errors.ts`) picks its HTTP status and answers
 * `{"error": message, ...extra}`. No HTTP number lives here.
 */
export const ERROR_CODES = [
  "invalid",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "gone",
  "too_large",
  "unsupported_encoding",
  "unsupported_media_type",
  "rate_limited",
  "upstream_failed",
  "unavailable",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const invalid = (message: string, extra?: Record<string, unknown>) => new DomainError("invalid", message, extra);
export const unauthorized = (message = "authentication required") => new DomainError("unauthorized", message);
export const forbidden = (message = "insufficient permission") => new DomainError("forbidden", message);
export const notFound = (what: string) => new DomainError("not_found", `${what} not found`);
export const conflict = (message: string, extra?: Record<string, unknown>) => new DomainError("conflict", message, extra);
export const gone = (message: string) => new DomainError("gone", message);
export const tooLarge = (message: string, extra?: Record<string, unknown>) => new DomainError("too_large", message, extra);
export const unsupportedEncoding = (message: string) => new DomainError("unsupported_encoding", message);
export const unsupportedMediaType = (message: string) => new DomainError("unsupported_media_type", message);
export const rateLimited = (message = "rate limit exceeded") => new DomainError("rate_limited", message);
export const upstreamFailed = (message: string) => new DomainError("upstream_failed", message);
export const unavailable = (message: string) => new DomainError("unavailable", message);
