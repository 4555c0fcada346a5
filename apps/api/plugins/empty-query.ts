import type { FastifyInstance } from "fastify";

/**
 * An empty query parameter (`?environment=`) counts as absent, on every route: dashboards and
 * agents send their unset filters that way, and no parameter of the SPEC has an empty value with a
 * meaning of its own. Without this, each route's schema decided alone, and `level=` was ignored
 * where `environment=` was a 400.
 */
export function dropEmptyQueryParameters(app: FastifyInstance): void {
  app.addHook("preValidation", (request, _reply, done) => {
    const query = request.query as Record<string, unknown> | null;
    if (typeof query === "object" && query !== null) for (const name in query) if (query[name] === "") delete query[name];
    done();
  });
}
