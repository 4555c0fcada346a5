import type { FastifyRequest } from "fastify";
import { forbidden, unauthorized } from "../../../domain/shared/errors.ts";
import { activeAppById, type IngestApp } from "../../../projections/events/app-lookup.ts";
import { callerOf } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";

export type IngestCaller = { keyId: string; app: IngestApp };

/** How long a resolved client key and its app are reused without reading the directory again. */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 10_000;

type Entry = { caller: IngestCaller; expiresAt: number };
const cacheByApi = new WeakMap<ApiDeps, Map<string, Entry>>();

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * The client key and app of an ingest request. SDKs post several batches a second per key, so a
 * resolved key (with its app row) is cached in memory for 5 seconds: a revoked or expired key, a
 * deleted app or a changed permission takes effect within that time on each API instance.
 * Failures are not cached, so a key works as soon as it exists.
 * @throws AppError 401 without a valid credential, 403 for anything but a client key with events:write
 */
export async function ingestCallerOf(deps: ApiDeps, request: FastifyRequest): Promise<IngestCaller> {
  const secret = BEARER.exec(request.headers.authorization ?? "")?.[1];
  let cache = cacheByApi.get(deps);
  if (!cache) {
    cache = new Map();
    cacheByApi.set(deps, cache);
  }
  const now = Date.now();
  const cached = secret === undefined ? undefined : cache.get(secret);
  if (cached && cached.expiresAt > now) {
    deps.keyUsage.touch(cached.caller.keyId);
    return cached.caller;
  }
  const principal = await callerOf(deps, request);
  if (!principal) throw unauthorized("a client API key is required (Authorization: Bearer svc_client_...)");
  if (principal.kind !== "key" || principal.keyType !== "client") throw forbidden("ingest requires a client API key");
  if (!principal.permissions.includes("events:write")) throw forbidden("requires the events:write permission");
  const app = principal.appId === null ? null : await activeAppById(deps.pool, principal.appId);
  if (!app) throw forbidden("the app of this key does not exist");
  const caller = { keyId: principal.keyId, app };
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(secret!, { caller, expiresAt: now + CACHE_TTL_MS });
  return caller;
}
