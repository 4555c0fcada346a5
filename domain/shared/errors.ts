/**
 * The failures a request can end in. Each carries its HTTP status; the API maps them in one
 * error handler to `{"error": message, ...extra}`.
 */
export class AppError extends Error {
  override name = "AppError";
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const invalid = (message: string, extra?: Record<string, unknown>) => new AppError(400, message, extra);
export const unauthorized = (message = "authentication required") => new AppError(401, message);
export const forbidden = (message = "insufficient permission") => new AppError(403, message);
export const notFound = (what: string) => new AppError(404, `${what} not found`);
export const conflict = (message: string, extra?: Record<string, unknown>) => new AppError(409, message, extra);
export const gone = (message: string) => new AppError(410, message);
export const tooLarge = (message: string, extra?: Record<string, unknown>) => new AppError(413, message, extra);
export const rateLimited = (message = "rate limit exceeded") => new AppError(429, message);
export const unavailable = (message: string) => new AppError(503, message);
