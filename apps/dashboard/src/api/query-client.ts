import { QueryCache, QueryClient } from "@tanstack/react-query";
import { ApiError, isUnauthorized } from "./client.ts";

export const SESSION_KEY = ["session"] as const;

/** Only rate limits and "read models behind" are worth asking again: the API says when. */
const retryable = (error: unknown) => error instanceof ApiError && (error.status === 429 || error.status === 503);

/**
 * Cached answers are shown at once and refreshed in the background: when older than a minute, on
 * focus and every minute while the page is open. A 401 anywhere means the session ended (signed
 * out elsewhere, revoked): the session is asked for again, which shows the sign-in page.
 */
export function newQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (isUnauthorized(error) && query.queryKey[0] !== SESSION_KEY[0]) void client.invalidateQueries({ queryKey: SESSION_KEY });
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 60_000,
        refetchInterval: 60_000,
        retry: (failures, error) => retryable(error) && failures < 6,
        // Spread out: requests refused together must not all come back in the same second.
        retryDelay: (failures, error) => (error instanceof ApiError && error.retryAfterSeconds ? error.retryAfterSeconds * 1000 : 1000) + Math.random() * 1000 * failures,
      },
    },
  });
  return client;
}
