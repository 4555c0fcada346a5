import type { FastifyError, FastifyInstance } from "fastify";
import { DomainError, type ErrorCode } from "../../../domain/shared/errors.ts";
import { isTransient } from "../../../projections/_runtime/transient.ts";
import { LogUnavailableError } from "../../../streams/errors.ts";

/** The HTTP status of each domain error code: the only place the two meet. */
export const STATUS_OF: Record<ErrorCode, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unsupported_encoding: 415,
  unsupported_media_type: 415,
  rate_limited: 429,
  upstream_failed: 502,
  unavailable: 503,
};

/**
 * One error handler for every route: `{"error": "..."}` always; 4xx for the caller's mistakes,
 * 503 while NATS or Postgres is unavailable, 500 (message hidden, logged with the request id)
 * for anything unexpected.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | DomainError | Error, request, reply) => {
    if (error instanceof DomainError) {
      const status = STATUS_OF[error.code];
      if (status === 429 || status === 503) void reply.header("Retry-After", "1");
      return reply.code(status).send({ error: error.message, ...error.extra });
    }
    if (error instanceof LogUnavailableError || isTransient(error)) {
      request.log.warn({ err: error }, "dependency unavailable");
      return reply.code(503).header("Retry-After", "1").send({ error: "service temporarily unavailable; retry" });
    }
    const status = (error as FastifyError).statusCode;
    if (typeof status === "number" && status >= 400 && status < 500) {
      return reply.code(status).send({ error: clientMessage(error as FastifyError) });
    }
    request.log.error({ err: error }, "unexpected error");
    return reply.code(500).send({ error: "internal server error" });
  });

  app.setNotFoundHandler((request, reply) => reply.code(404).send({ error: `route ${request.method} ${request.url.split("?")[0]} not found` }));
}

function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return "malformed JSON body";
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return "request body too large";
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return "unsupported content type";
    default:
      return error.message;
  }
}
