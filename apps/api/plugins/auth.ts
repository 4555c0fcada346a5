import type { FastifyInstance, FastifyRequest } from "fastify";
import { forbidden, unauthorized } from "../../../domain/shared/errors.ts";
import { authorize, checkKeyRule, PUBLIC, type Access } from "../auth/access.ts";
import { authenticate, type Principal, type UserPrincipal } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";
import { identityCallerOf, type IdentityCaller } from "../identity/caller.ts";
import { ingestCallerOf, type IngestCaller } from "../ingest/caller.ts";
import { authenticateRateLimited, rateLimitIdentity } from "../rate-limit.ts";
import { DOCS_PREFIX } from "./openapi.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

declare module "fastify" {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    /** The caller of a `session` or `team` route. */
    caller: Principal;
    /** The user of a `session` route. */
    user: UserPrincipal;
    /** The key and app of an `app-key` route. */
    appKey: IngestCaller;
    /** The key and app of an `sdk-key` route. */
    sdk: IdentityCaller;
  }
}

/** The access rule of the route a request matched; routes without one are refused at registration. */
const accessOf = (request: FastifyRequest): Access => request.routeOptions.config.access ?? PUBLIC;


/**
 * Resolves the caller once per request, before the body is read or validated, so a refused
 * caller costs no parsing and the answer is 401/403 whatever the input. Every route must declare
 * `config.access`: a route registered without one fails the start, so no route is open by omission.
 */
export function registerAuth(app: FastifyInstance, deps: ApiDeps): void {
  app.decorateRequest("caller", null as never);
  app.decorateRequest("user", null as never);
  app.decorateRequest("appKey", null as never);
  app.decorateRequest("sdk", null as never);

  app.addHook("onRoute", (route) => {
    // The reference page's own assets are the one exception: registered by its library, public.
    if (route.method === "HEAD" || route.config?.access !== undefined || route.url.startsWith(DOCS_PREFIX)) return;
    throw new Error(`route ${String(route.method)} ${route.url} declares no config.access`);
  });

  app.addHook("onRequest", async (request) => {
    const access = accessOf(request);
    switch (access.kind) {
      case "public":
        return;
      case "session": {
        const caller = required(await authenticate(deps, request));
        if (caller.kind !== "user") throw forbidden("this operation requires a user session");
        request.caller = caller;
        request.user = caller;
        return;
      }
      case "any": {
        const caller = required(await authenticate(deps, request));
        request.caller = caller;
        if (caller.kind === "user") request.user = caller;
        return;
      }
      case "team": {
        const caller = access.rateLimited
          ? await authenticateRateLimited(deps, request, async () => required(await authenticate(deps, request)), (principal) => rateLimitIdentity(principal, request))
          : required(await authenticate(deps, request));
        checkKeyRule(caller, access);
        request.caller = caller;
        if (caller.kind === "user") request.user = caller;
        // A malformed id is left to the params schema, which answers 400.
        const teamId = access.teamParam === undefined ? undefined : (request.params as Record<string, string | undefined>)[access.teamParam];
        if (teamId !== undefined && UUID.test(teamId)) await authorize(deps, caller, teamId.toLowerCase(), access, "team");
        return;
      }
      case "app-key":
        // SDKs ingest under the rate limit; imports are backfills a team runs on purpose, and
        // are bounded by their batch size instead (SPEC: import is not rate limited).
        request.appKey = access.keyType === "client"
          ? await authenticateRateLimited(deps, request, () => ingestCallerOf(deps, request, "client"), (caller) => `key:${caller.keyId}`)
          : await ingestCallerOf(deps, request, "import");
        return;
      case "sdk-key":
        request.sdk = await identityCallerOf(deps, request, access.permission);
        return;
    }
  });
}

function required(principal: Principal | null): Principal {
  if (!principal) throw unauthorized();
  return principal;
}
