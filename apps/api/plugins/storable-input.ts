import type { FastifyInstance } from "fastify";
import { invalid } from "../../../domain/shared/errors.ts";
import { isStorableText } from "../../../domain/shared/text.ts";

// In JSON text a NUL or a UTF-16 surrogate can only arrive escaped; other bodies skip the walk.
const ESCAPED_SUSPECT = /\\u(?:0000|d[89a-f])/i;

const refusal = (path: string) => invalid(`${path}: must not contain NUL characters or unpaired UTF-16 surrogates`);

/**
 * Refuses, with a 400, a NUL character or an unpaired surrogate anywhere in a request's query,
 * path parameters or JSON body. Postgres text and jsonb cannot hold them: a filter carrying one
 * fails its query, and a command carrying one would be accepted into the log and then fail in
 * every read model. The JSON parser keeps the default one's protection against prototype
 * poisoning. Ingest and import install their own body parser and reject such events one by one.
 */
export function refuseUnstorableInput(app: FastifyInstance): void {
  app.addHook("preValidation", async (request) => {
    const path = unstorablePath(request.query, "query") ?? unstorablePath(request.params, "params");
    if (path !== null) throw refusal(path);
  });

  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    parseJson(request, text, (error, value) => {
      if (error) return done(error, undefined);
      const path = ESCAPED_SUSPECT.test(text) ? unstorablePath(value, "body") : null;
      if (path !== null) return done(refusal(path), undefined);
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
