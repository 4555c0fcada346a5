import type {} from "@fastify/cookie";
import type { FastifyRequest } from "fastify";
import type { TriggeredBy } from "../../../domain/jobs/catalogue.ts";
import { unauthorized } from "../../../domain/shared/errors.ts";
import type { KeyType } from "../../../domain/shared/permissions.ts";
import { keyBySecret } from "../../../projections/directory/queries.ts";
import type { ApiDeps } from "../deps.ts";

export type UserPrincipal = { kind: "user"; userId: string; email: string };
export type KeyPrincipal = {
  kind: "key";
  keyId: string;
  keyType: KeyType;
  teamId: string;
  appId: string | null;
  permissions: string[];
  createdBy: string | null;
};
export type Principal = UserPrincipal | KeyPrincipal;

/** A team-wide key (agent) as the instance's key cache remembers it: the type tells it from an ingest caller. */
export type CachedPrincipal = { keyType: "principal"; principal: KeyPrincipal };

/** Who started a job run, as the run records it (SPEC, Job run `triggered_by`). */
export const triggeredByOf = (caller: Principal): TriggeredBy => (caller.kind === "user" ? `manual:user:${caller.userId}` : `manual:api_key:${caller.keyId}`);

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * Who is calling: an API key (`Authorization: Bearer svc_…`), or a user by JWT in the bearer
 * header or the `token` cookie. Returns null when no credentials were sent. The auth plugin asks
 * once per request (plugins/auth.ts).
 * @throws DomainError unauthorized for credentials that are invalid, revoked or expired
 */
export async function authenticate(deps: ApiDeps, request: FastifyRequest): Promise<Principal | null> {
  const bearer = BEARER.exec(request.headers.authorization ?? "")?.[1];
  if (bearer?.startsWith("svc_")) return keyPrincipal(deps, request.headers.authorization!, bearer);
  const token = bearer ?? request.cookies.token;
  if (!token) {
    if (request.headers.authorization) throw unauthorized("invalid credentials");
    return null;
  }
  const claims = await deps.tokens.verify(token);
  if (!claims) throw unauthorized("invalid session token");
  return { kind: "user", userId: claims.userId, email: claims.email };
}

/**
 * The key of `secret`. A team-wide key (no app: agent keys) is remembered by the instance's key
 * cache like ingest keys (auth/key-cache.ts): every dashboard or agent request would otherwise read
 * the directory first. A fact that deletes or changes the key, removes its creator with their
 * keys, or deletes its team forgets it before the next request (revocations.ts); it is never kept
 * past its expiry. App-bound keys are resolved by their routes (ingest/caller.ts) and not kept here.
 * @throws DomainError unauthorized for a key that does not exist or has expired
 */
async function keyPrincipal(deps: ApiDeps, authorization: string, secret: string): Promise<KeyPrincipal> {
  const cached = deps.keyCache.get(authorization);
  if (cached?.keyType === "principal") {
    deps.keyUsage.touch(cached.principal.keyId);
    return cached.principal;
  }
  // Taken before the directory is read: a revocation arriving meanwhile keeps this row out of the cache.
  const generation = deps.keyCache.generation;
  const key = await keyBySecret(deps.pool, secret);
  if (!key) throw unauthorized("invalid API key");
  const expiresAt = key.expires_at === null ? null : Date.parse(key.expires_at);
  if (expiresAt !== null && expiresAt <= Date.now()) throw unauthorized("API key expired");
  deps.keyUsage.touch(key.id);
  const principal: KeyPrincipal = {
    kind: "key",
    keyId: key.id,
    keyType: key.key_type,
    teamId: key.team_id,
    appId: key.app_id,
    permissions: key.permissions,
    createdBy: key.created_by,
  };
  if (key.app_id === null) {
    deps.keyCache.set(authorization, { keyType: "principal", principal }, { keyId: key.id, appId: null, projectId: null, teamId: key.team_id }, expiresAt, generation);
  }
  return principal;
}
