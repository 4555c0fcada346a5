import { createServer, type Server } from "node:http";

/** What the fake network answers for a token: a status and a body (JSON unless a string). */
export type FakeAnswer = { status: number; body?: unknown; delayMs?: number };

/**
 * A local stand-in for the search-ads attribution API: `POST /api/v1/` with the token as the
 * text body, answered from `answers` (404 for unknown tokens, as the network does before it has
 * a record). Records every token it was asked about.
 */
export async function startFakeAdnet(answers: Record<string, FakeAnswer>) {
  const received: { path: string; contentType: string | undefined; token: string }[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      received.push({ path: request.url ?? "", contentType: request.headers["content-type"], token: body });
      const answer = request.method === "POST" && request.url === "/api/v1/" ? (answers[body] ?? { status: 404 }) : { status: 405 };
      const send = () => {
        if (response.destroyed) return;
        const text = typeof answer.body === "string" ? answer.body : answer.body === undefined ? "" : JSON.stringify(answer.body);
        response.writeHead(answer.status, { "content-type": "application/json" });
        response.end(text);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("fake ad network has no port");
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
