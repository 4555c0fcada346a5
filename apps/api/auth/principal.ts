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
  if (bearer?.startsWith("svc_")) {
    const key = await keyBySecret(deps.pool, bearer);
    if (!key) throw unauthorized("invalid API key");
    if (key.expires_at !== null && Date.parse(key.expires_at) <= Date.now()) throw unauthorized("API key expired");
    deps.keyUsage.touch(key.id);
    return {
      kind: "key",
      keyId: key.id,
      keyType: key.key_type,
      teamId: key.team_id,
      appId: key.app_id,
      permissions: key.permissions,
      createdBy: key.created_by,
    };
  }
  const token = bearer ?? request.cookies.token;
  if (!token) {
    if (request.headers.authorization) throw unauthorized("invalid credentials");
    return null;
  }
  const claims = await deps.tokens.verify(token);
  if (!claims) throw unauthorized("invalid session token");
  return { kind: "user", userId: claims.userId, email: claims.email };
}
