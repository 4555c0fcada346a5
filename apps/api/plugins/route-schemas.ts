import type { FastifyInstance } from "fastify";
import type { ZodType, ZodTypeAny } from "zod";
import { invalid } from "../../../domain/shared/errors.ts";

/** Schemas that describe an input for the document but are not parsed at the edge (see `documentedOnly`). */
const unparsed = new WeakSet<ZodTypeAny>();

/**
 * Declares `schema` for the OpenAPI document only: the route receives the input as sent (typed
 * `unknown`). Ingest and import bodies use it: the domain checks them event by event with
 * hand-written rules, which reject bad events one at a time instead of the whole batch and cost a
 * fraction of a zod parse on the hottest path.
 */
export function documentedOnly(schema: ZodTypeAny): ZodType<unknown> {
  unparsed.add(schema);
  return schema as ZodType<unknown>;
}

/** How the request parts are named in a 400, as the routes named them before schemas were declared. */
const PART_NAMES: Record<string, string> = { body: "body", querystring: "query", params: "params", headers: "headers" };

/**
 * Every route declares zod schemas for its params, query, body and responses (`schema` route
 * option, typed through fastify-type-provider-zod's `ZodTypeProvider`). Input is parsed with zod
 * here, so handlers receive typed, transformed values and never call `parse` themselves; a bad
 * input is a 400 naming the first bad field (`limit: Number must be less than or equal to 200`),
 * or the part when the whole part is wrong (`body: Expected object, received null`).
 *
 * Responses are checked against their schema but sent as the handler built them: a field the
 * schema does not declare is not dropped. A response that breaks its schema is a bug in this
 * service: outside production it fails the request (500) so tests catch the drift; in production
 * it is logged and the answer goes out, since the caller is better served by the data than by an
 * error about our documentation.
 */
export function registerRouteSchemas(app: FastifyInstance, options: { strictResponses: boolean }): void {
  app.setValidatorCompiler<ZodTypeAny>(({ schema, httpPart }) => {
    const part = PART_NAMES[httpPart ?? "body"] ?? "body";
    if (unparsed.has(schema)) return (data) => ({ value: data });
    return (data) => {
      const result = schema.safeParse(data ?? {});
      if (result.success) return { value: result.data };
      const issue = result.error.issues[0]!;
      const field = issue.path.length > 0 ? issue.path.join(".") : part;
      return { error: invalid(`${field}: ${issue.message}`) };
    };
  });

  app.setSerializerCompiler<ZodTypeAny>(({ schema, url, method }) => (data) => {
    const result = schema.safeParse(data);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      const detail = { route: `${method} ${url}`, path: issue.path.join("."), problem: issue.message };
      if (options.strictResponses) throw new ResponseSchemaError(detail);
      app.log.error(detail, "response does not match its declared schema");
    }
    return JSON.stringify(data);
  });
}

export class ResponseSchemaError extends Error {
  override name = "ResponseSchemaError";
  constructor(readonly detail: { route: string; path: string; problem: string }) {
    super(`response of ${detail.route} breaks its schema at "${detail.path}": ${detail.problem}`);
  }
}
