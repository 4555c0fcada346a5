import type { FastifyInstance } from "fastify";
import { invalid } from "../../../domain/shared/errors.ts";
import { isStorableText } from "../../../domain/shared/text.ts";

// In JSON text a NUL or a UTF-16 surrogate can only arrive escaped; other bodies skip the walk.
const ESCAPED_SUSPECT = /\\u(?:0000|d[89a-f])/i;

/**
 * Replaces the default JSON body parser (same protection against prototype poisoning) with one
 * that refuses a NUL character or an unpaired surrogate anywhere in the body with a 400. Postgres
 * text and jsonb cannot hold them: a command carrying one would be accepted into the log and then
 * fail in every read model. Ingest and import install their own parser and reject such events one
 * by one instead.
 */
export function refuseUnstorableJson(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    parseJson(request, text, (error, value) => {
      if (error) return done(error, undefined);
      const path = ESCAPED_SUSPECT.test(text) ? unstorablePath(value, "body") : null;
      if (path !== null) return done(invalid(`${path}: must not contain NUL characters or unpaired UTF-16 surrogates`), undefined);
      done(null, value);
    });
  });
}

/** Where in `value` a key or string Postgres cannot store sits, or null. */
function unstorablePath(value: unknown, path: string): string | null {
  if (typeof value === "string") return isStorableText(value) ? null : path;
  if (typeof value !== "object" || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    const childPath = Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`;
    if (!isStorableText(key)) return path;
    const found = unstorablePath(child, childPath);
    if (found !== null) return found;
  }
  return null;
}
