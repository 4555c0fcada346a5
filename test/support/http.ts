import { expect } from "vitest";

export type HttpResponse<T = any> = { status: number; body: T; headers: Headers };

export type RequestOptions = {
  body?: unknown;
  rawBody?: string | Uint8Array;
  token?: string;
  headers?: Record<string, string>;
};

/** A small fetch wrapper: JSON in and out, `token` as a Bearer credential (JWT or API key). */
export function client(baseUrl: string) {
  const call = async <T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse<T>> => {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Uint8Array | undefined = options.rawBody;
    if (options.body !== undefined) {
      headers["content-type"] ??= "application/json";
      body = JSON.stringify(options.body);
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body: body as BodyInit | undefined });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      // Non-JSON bodies are returned as text so assertions can show them.
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  };
  return {
    call,
    get: <T = any>(path: string, options?: RequestOptions) => call<T>("GET", path, options),
    post: <T = any>(path: string, body?: unknown, options?: RequestOptions) => call<T>("POST", path, { ...options, body }),
    patch: <T = any>(path: string, body?: unknown, options?: RequestOptions) => call<T>("PATCH", path, { ...options, body }),
    delete: <T = any>(path: string, options?: RequestOptions) => call<T>("DELETE", path, options),
  };
}

export type Client = ReturnType<typeof client>;

/** The body of every 4xx and 5xx answer: `{"error": "..."}`. */
export const anError = { error: expect.any(String) };

/**
 * Sends bursts of 50 requests, far faster than a token bucket's refill of 10 a second, until one
 * is answered 429; every answer must have one of `allowed` statuses (429 aside). Returns the
 * refusal and how many requests it took, or no refusal after 1,000.
 */
export async function spendUntilRefused(send: () => Promise<HttpResponse>, allowed: readonly number[]) {
  let refused: HttpResponse | undefined;
  let sent = 0;
  while (!refused && sent < 1_000) {
    const answers = await Promise.all(Array.from({ length: 50 }, send));
    sent += answers.length;
    const unexpected = answers.find((answer) => answer.status !== 429 && !allowed.includes(answer.status));
    if (unexpected) throw new Error(`unexpected answer ${unexpected.status}: ${JSON.stringify(unexpected.body)}`);
    refused = answers.find((answer) => answer.status === 429);
  }
  return { refused, sent };
}
