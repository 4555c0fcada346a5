import createClient from "openapi-fetch";
import type { paths } from "./schema.ts";

/** An answer other than 2xx, with the API's `{"error": …}` message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Seconds from `Retry-After` on 429 and 503: how long to wait before asking again. */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }
}

/**
 * The typed client of the public API. Paths, query parameters, bodies and answers all come from
 * the OpenAPI document (schema.ts), so a route change that breaks a call fails the type check.
 * Requests go to this origin and carry the `token` cookie like any other browser client's.
 */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: "same-origin" });

/** The JSON body of a route's 200 answer, for typing what the pages hold. */
export type Answer<P extends keyof paths, M extends "get" | "post" | "patch" = "get"> = paths[P][M] extends {
  responses: { 200: { content: { "application/json": infer Body } } };
}
  ? Body
  : never;

/** openapi-fetch resolves every answer; queries and mutations want the body or a thrown ApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data;
  const message = typeof error === "object" && error !== null && "error" in error ? String(error.error) : `${response.status} ${response.statusText}`;
  const retryAfter = Number(response.headers.get("retry-after"));
  throw new ApiError(response.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
}

export const isUnauthorized = (error: unknown) => error instanceof ApiError && error.status === 401;
