import type { FastifyRequest } from "fastify";
import { forbidden, unauthorized } from "../../../domain/shared/errors.ts";
import { appOfKey, type IngestApp } from "../../../projections/events/app-lookup.ts";
import { authenticate } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";

export type IngestCaller = { keyId: string; app: IngestApp };

/** Client keys post to /v1/ingest, import keys to /v1/import; both are bound to one app. */
export type WritingKeyType = "client" | "import";

/** A resolved writing key as the key cache remembers it: the type proves what it was resolved for. */
export type CachedWritingKey = { keyType: WritingKeyType; caller: IngestCaller };

/**
 * The app-scoped key and app of an ingest (client key) or import (import key) request, resolved
 * by the auth plugin before the body is read (`appKey` access). A resolved key is remembered by
 * the instance's key cache (`deps.keyCache`), which forgets it as soon as a fact revokes it and
 * never keeps it past its expiry. Failures are not remembered, so a key works as soon as it exists.
 * @throws DomainError unauthorized without a valid credential, forbidden for any other key type or one without events:write
 */
export async function ingestCallerOf(deps: ApiDeps, request: FastifyRequest, keyType: WritingKeyType): Promise<IngestCaller> {
  const authorization = request.headers.authorization;
  const cached = authorization === undefined ? undefined : deps.keyCache.get(authorization);
  if (cached !== undefined && cached.keyType === keyType) {
    deps.keyUsage.touch(cached.caller.keyId);
    return cached.caller;
  }
  // Taken before the directory is read: a revocation arriving meanwhile keeps this row out of the cache.
  const generation = deps.keyCache.generation;
  const principal = await authenticate(deps, request);
  if (!principal) throw unauthorized(`a ${keyType} API key is required (Authorization: Bearer svc_${keyType}_...)`);
  const route = keyType === "client" ? "ingest" : "import";
  if (principal.kind !== "key" || principal.keyType !== keyType) throw forbidden(`${route} requires ${keyType === "client" ? "a client" : "an import"} API key`);
  if (!principal.permissions.includes("events:write")) throw forbidden("requires the events:write permission");
  const found = principal.appId === null ? null : await appOfKey(deps.pool, principal.keyId);
  if (!found) throw forbidden("the app of this key does not exist");
  const { app, keyExpiresAt } = found;
  const caller = { keyId: principal.keyId, app };
  const scope = { keyId: caller.keyId, appId: app.id, projectId: app.project_id, teamId: app.team_id };
  // A key principal comes only from a bearer header.
  deps.keyCache.set(authorization!, { keyType, caller }, scope, keyExpiresAt === null ? null : Date.parse(keyExpiresAt), generation);
  return caller;
}
