import { setTimeout as sleep } from "node:timers/promises";

/**
 * A call to an outside provider failed: the message names the provider and what went wrong (an
 * HTTP status, a timeout, a malformed body), never a credential. `status` is the provider's HTTP
 * status, null when no answer came.
 */
export class ProviderError extends Error {
  override name = "ProviderError";
  constructor(
    readonly provider: string,
    readonly status: number | null,
    message: string,
  ) {
    super(`${provider}: ${message}`);
  }
}

export type RetryPolicy = {
  /** Attempts in all, the first one included. */
  attempts: number;
  /** Wait before the second attempt; it doubles for each next one. */
  baseDelayMs: number;
  /** Longest wait, a provider's Retry-After included. */
  maxDelayMs: number;
};

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 250, maxDelayMs: 5_000 };

export type ProviderRequest = {
  provider: string;
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  /** Only for calls that are safe to repeat (reads): 429, 5xx, timeouts and refused connections are retried. */
  retry: RetryPolicy | null;
  signal?: AbortSignal;
};

const retryable = (status: number): boolean => status === 429 || status >= 500;

/**
 * Sends one request to a provider and returns its parsed JSON body on a 2xx answer. Each attempt
 * has its own timeout; a safe call is retried with exponential backoff (honouring Retry-After
 * within the policy's bound). The request's path is left out of error messages: it can carry
 * ids, and the URL's host already tells the operator where the call went.
 * @throws ProviderError for a non-2xx answer, a malformed body, a timeout or no connection
 */
export async function providerJson(request: ProviderRequest): Promise<unknown> {
  const attempts = request.retry?.attempts ?? 1;
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await attemptOnce(request);
    if (outcome.kind === "ok") return outcome.body;
    if (attempt >= attempts || !outcome.retryable) throw outcome.error;
    const policy = request.retry!;
    const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    await sleep(Math.min(policy.maxDelayMs, Math.max(backoff, outcome.retryAfterMs ?? 0)), undefined, { signal: request.signal });
  }
}

type Outcome = { kind: "ok"; body: unknown } | { kind: "failed"; error: ProviderError; retryable: boolean; retryAfterMs?: number };

async function attemptOnce(request: ProviderRequest): Promise<Outcome> {
  const { provider } = request;
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: { accept: "application/json", ...(request.body === undefined ? {} : { "content-type": "application/json" }), ...request.headers },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal,
    });
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason;
    const timedOut = timeout.aborted || (error as Error).name === "TimeoutError";
    const message = timedOut ? `no answer within ${request.timeoutMs} ms` : "could not be reached";
    return { kind: "failed", error: new ProviderError(provider, null, message), retryable: true };
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel().catch(() => undefined);
    const retryAfter = Number(response.headers.get("retry-after"));
    return {
      kind: "failed",
      error: new ProviderError(provider, response.status, `answered HTTP ${response.status}`),
      retryable: retryable(response.status),
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1_000 : undefined,
    };
  }
  try {
    return { kind: "ok", body: await response.json() };
  } catch {
    if (request.signal?.aborted) throw request.signal.reason;
    // A body cut off by the timeout is a slow answer, worth another try; garbage is not.
    if (timeout.aborted) return { kind: "failed", error: new ProviderError(provider, response.status, `no complete answer within ${request.timeoutMs} ms`), retryable: true };
    return { kind: "failed", error: new ProviderError(provider, response.status, "answered with a body that is not JSON"), retryable: false };
  }
}
