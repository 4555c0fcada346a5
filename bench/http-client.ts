import { Agent, request } from "node:http";

export type Answer = { status: number; text: string };

// One keep-alive pool for the whole load generator, as an SDK keeps its connection open.
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/**
 * One HTTP request over the shared keep-alive agent; status 0 when the request itself failed.
 * The benchmark's clients share the 2 cores with the service they measure, so they use node:http
 * directly: measured on this machine, fetch (undici) spends about 500 µs more CPU per 30 kB POST,
 * a fifth of a core at 400 batches a second taken from the service under test.
 */
export function send(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const headers: Record<string, string | number> = { ...init.headers };
  if (init.body !== undefined) headers["content-length"] = Buffer.byteLength(init.body);
  return new Promise((resolve) => {
    const req = request(url, { method: init.method ?? "GET", headers, agent }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      res.on("error", () => resolve({ status: 0, text }));
    });
    req.on("error", () => resolve({ status: 0, text: "" }));
    req.end(init.body);
  });
}

/** Closes the idle keep-alive connections so the process can exit. */
export const closeConnections = () => agent.destroy();
