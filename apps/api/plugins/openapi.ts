import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, RouteOptions } from "fastify";
import type { ZodTypeAny } from "zod";
import { zodToJsonSchema } from "zod-to-json-schema";
import { PUBLIC, type Access } from "../auth/access.ts";

/** Where the interactive reference is served; its own asset routes are the only ones without `config.access`. */
export const DOCS_PREFIX = "/docs";

/** Per-route documentation beside the zod schemas: examples of the main answers and of the body. */
export type RouteExamples = { body?: unknown } & Partial<Record<number, unknown>>;

/** A route as registered, for checking that the document covers every one (test/integration/openapi.int.test.ts). */
export type RegisteredRoute = { method: string; url: string; hidden: boolean };

declare module "fastify" {
  interface FastifySchema {
    examples?: RouteExamples;
  }
  interface FastifyInstance {
    /** Every route registered after the OpenAPI plugin, with its method and URL pattern. */
    registeredRoutes: readonly RegisteredRoute[];
  }
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  204: "No content",
  400: "Invalid input: `{\"error\": \"<field>: <problem>\"}`",
  401: "Missing, invalid, revoked or expired credentials",
  403: "The credentials do not allow this operation",
  404: "Not found, or not visible to the caller",
  409: "Conflicts with the current state",
  410: "No longer available",
  413: "Too large",
  415: "Unsupported content encoding",
  429: "Rate limited; retry after the `Retry-After` seconds",
  502: "An outside provider failed",
  503: "A dependency is unavailable, or the change is stored but not yet readable; retry",
};

const errorBody = {
  type: "object",
  properties: { error: { type: "string" } },
  required: ["error"],
  additionalProperties: true,
};

/** JSON Schema (2019-09, which OpenAPI 3.1 reads as 2020-12) of a zod schema, as callers send it. */
function jsonSchemaOf(schema: ZodTypeAny): Record<string, unknown> {
  // Unknown fields are ignored, not refused (zod strips them): only `.strict()` objects say so.
  const json = zodToJsonSchema(schema, {
    target: "jsonSchema2019-09",
    $refStrategy: "none",
    effectStrategy: "input",
    removeAdditionalStrategy: "strict",
    allowedAdditionalProperties: undefined,
  }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

const isZod = (value: unknown): value is ZodTypeAny => typeof (value as { safeParse?: unknown } | undefined)?.safeParse === "function";

/** A route registered as `/` under a prefix serves `/v1/projects` and `/v1/projects/`: the document names the first. */
export const documentedPath = (url: string) => (url.length > 1 && url.endsWith("/") ? url.slice(0, -1) : url);

/** What a route's access rule means for a reader of the document. */
export function describeAccess(access: Access): string {
  switch (access.kind) {
    case "public":
      return "Public: no credentials.";
    case "session":
      return "A user session (`Authorization: Bearer <session token>` or the `token` cookie); API keys get 403.";
    case "any":
      return "Any valid credentials: a user session (bearer or `token` cookie) or an API key of any type.";
    case "team": {
      const keys = access.userOnly ? "API keys get 403" : `API keys of the team need \`${access.permission}\``;
      const limited = access.rateLimited ? " Each call spends a rate-limit token (100 per identity, refilled at 10/s)." : "";
      const where = access.teamParam ? "the team the path names" : "the resource's team";
      return `A user with at least the ${access.role} role in ${where}; ${keys}.${limited}`;
    }
    case "app-key": {
      const limited = access.keyType === "client" ? " Each call spends a rate-limit token." : " Not rate limited.";
      return `An app's ${access.keyType} key (\`Authorization: Bearer svc_${access.keyType}_…\`) with \`events:write\`.${limited}`;
    }
    case "sdk-key":
      return `An app's client key (\`Authorization: Bearer svc_client_…\`) with \`${access.permission}\`.`;
  }
}

/** The statuses every route of a kind can answer besides its own: input, credentials, limits, outages. */
function commonStatuses(route: RouteOptions, access: Access): number[] {
  const schema = route.schema ?? {};
  const statuses = [503];
  if (schema.body || schema.querystring || schema.params) statuses.push(400);
  if (access.kind !== "public") statuses.push(401, 403);
  if (schema.params) statuses.push(404);
  if ((access.kind === "team" && access.rateLimited) || (access.kind === "app-key" && access.keyType === "client")) statuses.push(429);
  return statuses;
}

/**
 * Rewrites one route for the document: zod schemas become JSON Schema, every status the route can
 * answer gets a response (its own declared ones, plus the common ones its access and inputs
 * imply, all errors as `{"error": …}`), the access rule becomes the security requirement and a
 * line of the description, and the route's examples are attached to their schemas.
 */
function documentRoute({ schema, url: registered, route }: { schema: RouteOptions["schema"]; url: string; route: RouteOptions }) {
  const url = documentedPath(registered);
  if (!schema || schema.hide) return { schema: { hide: true }, url };
  const access = route.config?.access ?? PUBLIC;
  const examples: RouteExamples = schema.examples ?? {};
  const out: Record<string, unknown> = {
    summary: schema.summary,
    description: [schema.description, `**Access.** ${describeAccess(access)}`].filter(Boolean).join("\n\n"),
    tags: schema.tags,
  };
  // Users may send their session as the cookie; app and SDK keys only ever come as a bearer.
  if (access.kind !== "public") out.security = access.kind === "app-key" || access.kind === "sdk-key" ? [{ bearer: [] }] : [{ bearer: [] }, { cookie: [] }];
  for (const part of ["params", "querystring", "headers"] as const) {
    if (isZod(schema[part])) out[part] = jsonSchemaOf(schema[part]);
  }
  // A body other than JSON (an upload's bytes) names its media type.
  if (schema.consumes) out.consumes = schema.consumes;
  if (isZod(schema.body)) {
    const body = jsonSchemaOf(schema.body);
    if (examples.body !== undefined) body.examples = [examples.body];
    out.body = body;
  }
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries((schema.response ?? {}) as Record<string, unknown>)) {
    const json = isZod(response) ? jsonSchemaOf(response) : (response as Record<string, unknown>);
    if (examples[Number(status)] !== undefined) json.examples = [examples[Number(status)]];
    json.description ??= STATUS_TEXT[Number(status)] ?? "Answer";
    responses[status] = json;
  }
  for (const status of commonStatuses(route, access)) {
    responses[status] ??= { ...errorBody, description: STATUS_TEXT[status] };
  }
  out.response = responses;
  return { schema: out, url };
}

/**
 * The API describes itself: an OpenAPI 3.1 document generated from the route schemas at
 * `GET /v1/openapi.json`, and an interactive reference at `/docs` (assets served locally, so it
 * works where the service has no internet access).
 */
export async function registerOpenApi(app: FastifyInstance, info: { version: string; publicBaseUrl: string }): Promise<void> {
  const routes: RegisteredRoute[] = [];
  app.decorate("registeredRoutes", routes);
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) {
      if (method !== "HEAD") routes.push({ method, url: route.url, hidden: route.schema?.hide === true || route.url.startsWith(DOCS_PREFIX) });
    }
  });
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Event Analytics API",
        version: info.version,
        description: "Events, metrics, funnels, users and identity of your apps. Errors are always `{\"error\": \"...\"}`.",
      },
      servers: [{ url: info.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "A session token from `/v1/auth/verify-code`, or an API key `svc_…`" },
          cookie: { type: "apiKey", in: "cookie", name: "token", description: "The session cookie set by `/v1/auth/verify-code`" },
        },
      },
    },
    transform: documentRoute,
  });
  await app.register(swaggerUi, { routePrefix: DOCS_PREFIX, staticCSP: true });
  app.get("/v1/openapi.json", { schema: { hide: true }, config: { access: PUBLIC } }, async () => app.swagger());
}
