import type { FastifyRequest } from "fastify";
import type { FactOrigin } from "../../../domain/identity/decider.ts";
import { forbidden, unauthorized } from "../../../domain/shared/errors.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { activeApp } from "../../../projections/directory/catalog-queries.ts";
import { authenticate } from "../auth/principal.ts";
import type { ApiDeps } from "../deps.ts";

/** The client key behind an identity call and the app (hence project) it is scoped to. */
export type IdentityCaller = { keyId: string; teamId: string; projectId: string; appId: string };

/**
 * Identity routes are for SDKs: a client key holding `permission`, acting on its app's project.
 * @throws DomainError unauthorized without valid credentials, forbidden for anything but such a key
 */
export async function identityCallerOf(deps: ApiDeps, request: FastifyRequest, permission: string): Promise<IdentityCaller> {
  const principal = await authenticate(deps, request);
  if (!principal) throw unauthorized("a client API key is required (Authorization: Bearer svc_client_...)");
  if (principal.kind !== "key" || principal.keyType !== "client") throw forbidden("identity calls require a client API key");
  if (!principal.permissions.includes(permission)) throw forbidden(`requires the ${permission} permission`);
  const app = principal.appId === null ? null : await activeApp(deps.pool, principal.appId);
  if (!app) throw forbidden("the app of this key does not exist");
  return { keyId: principal.keyId, teamId: app.team_id, projectId: app.project_id, appId: app.id };
}

/** Where an identity fact decided now for `caller` comes from: a new id, the key's team, project and app, and now. */
export const originOf = (caller: IdentityCaller): FactOrigin => ({
  factId: newId(),
  teamId: caller.teamId,
  projectId: caller.projectId,
  appId: caller.appId,
  at: new Date().toISOString(),
});
