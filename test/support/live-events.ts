import { get, type IncomingMessage } from "node:http";

/** A received SSE message of `GET /v1/events/live` and when it arrived (ms since the epoch). */
type LiveMessage = { event: any; at: number };

export type LiveStream = {
  status: number;
  headers: Headers;
  /** The parsed body of a refusal (JSON), undefined for a stream. */
  refusal: any;
  messages: LiveMessage[];
  /** Comment lines received (`live`, `keep-alive`). */
  comments: string[];
  /** Resolves with the first message `match` accepts, received or still to come; rejects after `timeoutMs`. */
  next: (match: (event: any) => boolean, timeoutMs?: number) => Promise<LiveMessage>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close: () => void;
};

/**
 * Opens `GET /v1/events/live?<query>` with a bearer token and reads its Server-Sent Events as they
 * come, the way EventSource would (only `data:` lines and comments are read).
 */
export async function openLive(baseUrl: string, query: string, token?: string): Promise<LiveStream> {
  // node:http rather than fetch: fetch's pool keeps a spare connection open after an abort, which
  // holds a closing server for its header timeout.
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = get(`${baseUrl}/v1/events/live?${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, agent: false }, resolve);
    request.on("error", reject);
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) if (typeof value === "string") headers.set(name, value);
  const status = response.statusCode ?? 0;
  const messages: LiveMessage[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const close = () => response.destroy();
  if (!headers.get("content-type")?.startsWith("text/event-stream")) {
    let text = "";
    for await (const chunk of response) text += String(chunk);
    return { status, headers, refusal: JSON.parse(text), messages, comments, next: () => Promise.reject(new Error("not a stream")), ended: Promise.resolve(), close };
  }
  const ended = (async () => {
    let buffered = "";
    try {
      response.setEncoding("utf8");
      for await (const chunk of response) {
        buffered += String(chunk);
        let end: number;
        while ((end = buffered.indexOf("\n\n")) >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          for (const line of block.split("\n")) {
            if (line.startsWith("data: ")) messages.push({ event: JSON.parse(line.slice(6)), at: Date.now() });
            else if (line.startsWith(":")) comments.push(line.slice(1).trim());
          }
          for (const wake of waiters) wake();
        }
      }
    } catch {
      // Destroyed by close().
    }
  })();
  const next = (match: (event: any) => boolean, timeoutMs = 5_000) =>
    new Promise<LiveMessage>((resolve, reject) => {
      const check = () => {
        const found = messages.find((message) => match(message.event));
        if (!found) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no live event matched within ${timeoutMs} ms (received ${messages.length})`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return { status, headers, refusal: undefined, messages, comments, next, ended, close };
}
