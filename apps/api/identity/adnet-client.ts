import { resultOf, type AttributionResult, type NetworkRecord } from "../../../domain/identity/attribution.ts";
import { invalid, upstreamFailed } from "../../../domain/shared/errors.ts";

const upstream = upstreamFailed;

/**
 * Resolves an attribution token with the search-ads attribution API: `POST <base>/api/v1/` with
 * the token as a text body. 200 carries the attribution record as JSON, 404 means the network has
 * no record yet (the SDK asks again later), 400 means the token is invalid; anything else, a
 * malformed answer, a refused connection or a timeout is an upstream failure.
 * @throws DomainError invalid for a token the network rejects, upstream_failed for an upstream failure
 */
export async function resolveAttributionToken(baseUrl: string, timeoutMs: number, token: string): Promise<AttributionResult> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/api/v1/`, {
      method: "POST",
      headers: { "content-type": "text/plain", accept: "application/json" },
      body: token,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    throw upstream(timedOut ? "the ad network did not answer in time" : "the ad network could not be reached");
  }
  if (response.status === 404) {
    await response.body?.cancel();
    return { kind: "pending" };
  }
  if (response.status === 400) {
    await response.body?.cancel();
    throw invalid("attribution_token: the ad network rejected the token as invalid");
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw upstream(`the ad network answered ${response.status}`);
  }
  let record: unknown;
  try {
    record = await response.json();
  } catch {
    throw upstream("the ad network answered with malformed JSON");
  }
  if (typeof record !== "object" || record === null || typeof (record as NetworkRecord).attribution !== "boolean") {
    throw upstream("the ad network answered without an attribution flag");
  }
  return resultOf(record as NetworkRecord);
}
