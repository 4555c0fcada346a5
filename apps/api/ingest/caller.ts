import type { FastifyRequest } from "fastify";
import { forbidden, unauthorized } from "../../../domain/shared/errors.ts";
import { activeAppById, type IngestApp } from "../../../projections/events/app-lookup.ts";
import { callerOf } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";

export type IngestCaller = { keyId: string; app: IngestApp };

/** Client keys post to /v1/ingest, import keys to /v1/import; both are bound to one app. */
export type WritingKeyType = "client" | "import";

/** How long a resolved key and its app are reused without reading the directory again. */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 10_000;

type Entry = { caller: IngestCaller; expiresAt: number };
// One cache per API and key type, keyed by the Authorization header: an entry proves the key type
// it was resolved for.
const cacheByApi = new WeakMap<ApiDeps, Record<WritingKeyType, Map<string, Entry>>>();
const resolved = new WeakMap<FastifyRequest, Promise<IngestCaller>>();

/**
 * The app-scoped key and app of an ingest (client key) or import (import key) request, resolved
 * once per request (the onRequest hook and the handler share the answer). SDKs post several
 * batches a second per key, so a resolved key (with its app row) is cached in memory for
 * 5 seconds: a revoked or expired key, a deleted app or a changed permission takes effect within
 * that time on each API instance. Failures are not cached, so a key works as soon as it exists.
 * @throws DomainError unauthorized without a valid credential, forbidden for any other key type or one without events:write
 */
export function ingestCallerOf(deps: ApiDeps, request: FastifyRequest, keyType: WritingKeyType = "client"): Promise<IngestCaller> {
  let caller = resolved.get(request);
  if (!caller) {
    caller = resolve(deps, request, keyType);
    resolved.set(request, caller);
  }
  return caller;
}

async function resolve(deps: ApiDeps, request: FastifyRequest, keyType: WritingKeyType): Promise<IngestCaller> {
  const authorization = request.headers.authorization;
  let caches = cacheByApi.get(deps);
  if (!caches) {
    caches = { client: new Map(), import: new Map() };
    cacheByApi.set(deps, caches);
  }
  const cache = caches[keyType];
  const now = Date.now();
  const cached = authorization === undefined ? undefined : cache.get(authorization);
  if (cached && cached.expiresAt > now) {
    deps.keyUsage.touch(cached.caller.keyId);
    return cached.caller;
  }
  const principal = await callerOf(deps, request);
  if (!principal) throw unauthorized(`a ${keyType} API key is required (Authorization: Bearer svc_${keyType}_...)`);
  const route = keyType === "client" ? "ingest" : "import";
  if (principal.kind !== "key" || principal.keyType !== keyType) throw forbidden(`${route} requires ${keyType === "client" ? "a client" : "an import"} API key`);
  if (!principal.permissions.includes("events:write")) throw forbidden("requires the events:write permission");
  const app = principal.appId === null ? null : await activeAppById(deps.pool, principal.appId);
  if (!app) throw forbidden("the app of this key does not exist");
  const caller = { keyId: principal.keyId, app };
  if (cache.size >= CACHE_MAX) cache.clear();
  // A key principal comes only from a bearer header.
  cache.set(authorization!, { caller, expiresAt: now + CACHE_TTL_MS });
  return caller;
}
