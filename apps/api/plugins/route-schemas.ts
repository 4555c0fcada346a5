import type { FastifyInstance } from "fastify";
import type { ZodType, ZodTypeAny } from "zod";
import { parse } from "../validation.ts";

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
 * Responses are sent as the handler built them (a field the schema does not declare is not
 * dropped). Outside production each is first checked against its declared schema, and one that
 * breaks it fails the request (500): the tests exercise every route, so a schema that drifted from
 * the handler is caught there. Production skips the check and serializes as fast as without
 * schemas: the document is a promise the tests keep, not a cost every answer pays.
 */
export function registerRouteSchemas(app: FastifyInstance, options: { strictResponses: boolean }): void {
  app.setValidatorCompiler<ZodTypeAny>(({ schema, httpPart }) => {
    const part = PART_NAMES[httpPart ?? "body"] ?? "body";
    if (unparsed.has(schema)) return (data) => ({ value: data });
    return (data) => {
      try {
        return { value: parse(schema, data, part) };
      } catch (error) {
        return { error: error as Error };
      }
    };
  });

  app.setSerializerCompiler<ZodTypeAny>(({ schema, url, method }) => {
    if (!options.strictResponses) return (data) => JSON.stringify(data);
    return (data) => {
      const result = schema.safeParse(data);
      if (!result.success) {
        const issue = result.error.issues[0]!;
        throw new ResponseSchemaError({ route: `${method} ${url}`, path: issue.path.join("."), problem: issue.message });
      }
      return JSON.stringify(data);
    };
  });
}

export class ResponseSchemaError extends Error {
  override name = "ResponseSchemaError";
  constructor(readonly detail: { route: string; path: string; problem: string }) {
    super(`response of ${detail.route} breaks its schema at "${detail.path}": ${detail.problem}`);
  }
}
