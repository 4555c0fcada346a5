/** Where the CLI finds a running service and which key it uses (`--url`, `--key`, or SERVICE_URL / API_KEY). */
export type ServiceTarget = { url: string; key: string };

const ATTEMPTS = 5;

export function serviceTarget(options: { url?: string; key?: string }): ServiceTarget {
  const url = (options.url ?? process.env.SERVICE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`).replace(/\/+$/, "");
  const key = options.key ?? process.env.API_KEY;
  if (!key) throw new Error("an API key is needed: --key <key> or API_KEY");
  return { url, key };
}

/**
 * A request to the service, repeated with backoff while it answers 429 or 503 (it did nothing)
 * or, for a request safe to repeat, cannot be reached (a lost answer may hide a done request);
 * other answers are returned.
 */
export async function requestWithRetries(target: ServiceTarget, path: string, init: RequestInit = {}, options = { safeToRepeat: true }): Promise<Response> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    try {
      const response = await fetch(`${target.url}${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${target.key}` } });
      if (response.status !== 429 && response.status !== 503) return response;
      const retryAfter = Number(response.headers.get("retry-after"));
      await response.body?.cancel();
      lastError = new Error(`the service answered ${response.status}`);
      await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 500 * 2 ** attempt);
    } catch (error) {
      if (!options.safeToRepeat) throw error;
      lastError = error;
      await sleep(500 * 2 ** attempt);
    }
  }
  throw new Error(`${target.url}${path.split("?")[0]}: ${(lastError as Error).message}`);
}

/** The `{error}` of a refused request, for a message that says why. */
export async function errorOf(response: Response): Promise<string> {
  const text = await response.text();
  try {
    return (JSON.parse(text) as { error?: string }).error ?? text;
  } catch {
    return text;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
