import { setTimeout as sleep } from "node:timers/promises";
import type { CountryRatings } from "../../../domain/ratings/events.ts";
import { readLookupAnswer } from "../../../domain/ratings/lookup-answer.ts";
import type { AppStoreConfig } from "../../app-store-config.ts";

/** A lookup that failed for good: the message names the store, the app, the storefront and the status. */
export class AppStoreError extends Error {
  override name = "AppStoreError";
  constructor(
    message: string,
    /** The HTTP status of the last answer; null when there was none (timeout, network). */
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** One storefront's numbers for the app, or null when the storefront does not list it. */
export type Listing = Omit<CountryRatings, "country">;

/** Longest wait between attempts, whatever `Retry-After` asks: one slow storefront must not hold the whole day's run for long. */
const MAX_WAIT_MS = 60_000;

/**
 * Spaces requests at least `intervalMs` apart, retries included: the Search API allows a caller
 * about 20 calls a minute and refuses the ones beyond, which would cost more time than the
 * spacing does. One pacer is shared by every lookup of a run.
 */
export class Pacer {
  #next = 0;
  constructor(private readonly intervalMs: number) {}

  async turn(stop?: AbortSignal): Promise<void> {
    const now = Date.now();
    const wait = this.#next - now;
    this.#next = Math.max(now, this.#next) + this.intervalMs;
    if (wait > 0) await sleep(wait, undefined, { signal: stop });
  }
}

type Attempt =
  | { kind: "answer"; body: string }
  | { kind: "final"; status: number }
  | { kind: "retry"; status: number | null; reason: string; retryAfterMs: number };

/** `Retry-After` in seconds or as an HTTP date; 0 when absent or unreadable. */
function retryAfterMs(header: string | null, now = Date.now()): number {
  if (header === null) return 0;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1_000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? 0 : Math.max(0, at - now);
}

/** fetch reports a network failure as `fetch failed` with the socket's error as its cause. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return (error as Error).message;
}

/** One request: 429 and 5xx, timeouts and network failures may pass, so they are worth another attempt. */
async function attempt(url: string, timeoutMs: number, stop: AbortSignal | undefined): Promise<Attempt> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = stop ? AbortSignal.any([stop, timeout]) : timeout;
  try {
    const response = await fetch(url, { headers: { accept: "application/json" }, signal });
    if (response.status === 429 || response.status >= 500) {
      await response.body?.cancel();
      return { kind: "retry", status: response.status, reason: `answered ${response.status}`, retryAfterMs: retryAfterMs(response.headers.get("retry-after")) };
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      return { kind: "final", status: response.status };
    }
    // The store answers `text/javascript`, so the body is read as text whatever its content type.
    return { kind: "answer", body: await response.text() };
  } catch (error) {
    if (stop?.aborted) throw error;
    if (timeout.aborted) return { kind: "retry", status: null, reason: `did not answer within ${timeoutMs} ms`, retryAfterMs: 0 };
    return { kind: "retry", status: null, reason: `could not be reached (${causeOf(error)})`, retryAfterMs: 0 };
  }
}

/**
 * The ratings of the app with `bundleId` in one storefront, through the iTunes Search API's
 * Lookup endpoint: `GET <lookupUrl>/lookup?bundleId=<id>&country=<cc>`. A 429, a 5xx, a timeout or
 * a network failure is tried again up to `retries` times, waiting `retryBaseMs` doubled at each
 * retry, or longer when `Retry-After` asks (at most a minute). Another status, malformed JSON or
 * an answer of another shape fails at once: asking again would get the same answer.
 * @throws AppStoreError when the lookup failed for good
 */
export async function lookupRatings(
  config: AppStoreConfig,
  bundleId: string,
  country: string,
  { pacer, stop }: { pacer?: Pacer; stop?: AbortSignal } = {},
): Promise<Listing | null> {
  const url = `${config.lookupUrl}/lookup?${new URLSearchParams({ bundleId, country })}`;
  const what = `App Store lookup of ${bundleId} in ${country}`;
  for (let tries = 1; ; tries += 1) {
    await pacer?.turn(stop);
    const outcome = await attempt(url, config.timeoutMs, stop);
    if (outcome.kind === "final") throw new AppStoreError(`${what} answered ${outcome.status}`, outcome.status);
    if (outcome.kind === "retry") {
      if (tries > config.retries) {
        throw new AppStoreError(`${what} ${outcome.reason}${tries > 1 ? ` (${tries} attempts)` : ""}`, outcome.status);
      }
      const wait = Math.min(MAX_WAIT_MS, Math.max(config.retryBaseMs * 2 ** (tries - 1), outcome.retryAfterMs));
      await sleep(wait, undefined, { signal: stop });
      continue;
    }
    let body: unknown;
    try {
      body = JSON.parse(outcome.body);
    } catch {
      throw new AppStoreError(`${what} answered 200 with malformed JSON`, 200);
    }
    const answer = readLookupAnswer(body, bundleId);
    if (answer.kind === "malformed") throw new AppStoreError(`${what} answered 200 with an unexpected shape: ${answer.reason}`, 200);
    return answer.kind === "listed" ? answer.ratings : null;
  }
}
