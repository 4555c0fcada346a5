import type { FastifyInstance } from "fastify";
import { invalid } from "../../../domain/shared/errors.ts";
import { isStorableText } from "../../../domain/shared/text.ts";

// In JSON text a NUL or a UTF-16 surrogate can only arrive escaped; other bodies skip the walk.
const ESCAPED_SUSPECT = /\\u(?:0000|d[89a-f])/i;

/** The 400; a path built from arbitrary keys is cut short, so the answer stays small. */
const refusal = (path: string) => invalid(`${path.length > 100 ? `${path.slice(0, 100)}…` : path}: must not contain NUL characters or unpaired UTF-16 surrogates`);

const isEmpty = (value: unknown) => typeof value !== "object" || value === null || Object.keys(value).length === 0;

/**
 * How every route reads its raw input, before its own schema:
 * - An empty query parameter (`?environment=`) counts as absent: dashboards and agents send their
 *   unset filters that way, and no parameter of the SPEC has an empty value with a meaning of its
 *   own (before, each schema decided alone: `level=` was ignored where `environment=` was a 400).
 * - A NUL character or an unpaired surrogate anywhere in the query, the path parameters or a JSON
 *   body is a 400. Postgres text and jsonb cannot hold them: a filter carrying one fails its query,
 *   and a command carrying one would be accepted into the log and then fail in every read model.
 *   The JSON parser keeps the default one's protection against prototype poisoning. Ingest and
 *   import install their own body parser and reject such events one by one.
 */
export function readRequestInput(app: FastifyInstance): void {
  app.addHook("preValidation", (request, _reply, done) => {
    const query = request.query as Record<string, unknown> | null;
    if (typeof query === "object" && query !== null) for (const name in query) if (query[name] === "") delete query[name];
    // Most requests (every ingest batch) have neither: nothing to walk.
    if (isEmpty(query) && isEmpty(request.params)) return done();
    const path = unstorablePath(query, "query") ?? unstorablePath(request.params, "params");
    done(path === null ? undefined : refusal(path));
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

type Visit = { value: unknown; key: string; parent: Visit | null; inArray: boolean };

/**
 * Where in `value` a key or string Postgres cannot store sits, or null. Walked with a stack of its
 * own, not recursion, so a deeply nested body cannot overflow the call stack; the path is spelled
 * out only for the one it reports.
 */
function unstorablePath(value: unknown, root: string): string | null {
  const stack: Visit[] = [{ value, key: root, parent: null, inArray: false }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    if (typeof visit.value === "string") {
      if (!isStorableText(visit.value)) return pathOf(visit);
      continue;
    }
    if (typeof visit.value !== "object" || visit.value === null) continue;
    const inArray = Array.isArray(visit.value);
    for (const [key, child] of Object.entries(visit.value)) {
      if (!isStorableText(key)) return pathOf(visit);
      stack.push({ value: child, key, parent: visit, inArray });
    }
  }
  return null;
}

function pathOf(visit: Visit): string {
  const parts: string[] = [];
  for (let at: Visit | null = visit; at !== null; at = at.parent) parts.push(at.parent === null ? at.key : at.inArray ? `[${at.key}]` : `.${at.key}`);
  return parts.reverse().join("");
}
