import { gzipSync } from "node:zlib";
import type { HttpResponse } from "./http.ts";
import type { SeededRandom } from "./seeded-random.ts";

/**
 * Sometimes wraps `raw` in a content encoding the way broken clients do: gzip (whole or cut
 * short), a declared encoding over a plain body, or encodings the routes do not accept.
 */
export function mangleEncoding(random: SeededRandom, raw: string | Uint8Array, headers: Record<string, string>): string | Uint8Array {
  if (random.next() >= 0.15) return raw;
  headers["content-encoding"] = random.pick(["gzip", "gzip", "gzip", "deflate", "br", "gzip, gzip", "identity"]);
  const encoded = random.next() < 0.8 ? gzipSync(raw) : Buffer.from(raw);
  return random.next() < 0.2 ? encoded.subarray(0, Math.max(1, random.int(encoded.length))) : encoded;
}

/**
 * A batch route's answer is either a 200 with numeric `counters` and, only when events were
 * rejected, errors of the form `events[<index>]: <reason>`, or a 4xx `{"error": ...}`.
 */
export function isBatchAnswer(response: HttpResponse, counters: readonly string[]): boolean {
  const body = response.body;
  if (response.status !== 200) return response.status >= 400 && response.status < 500 && typeof body?.error === "string";
  return (
    counters.every((counter) => typeof body?.[counter] === "number") &&
    (body.rejected === 0
      ? body.errors === undefined
      : Array.isArray(body.errors) && body.errors.every((error: { index: number; message: string }) => error.message.startsWith(`events[${error.index}]: `)))
  );
}
