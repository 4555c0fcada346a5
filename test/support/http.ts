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
