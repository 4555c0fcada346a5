import { invalid } from "../shared/errors.ts";
import { newId, randomToken } from "../shared/ids.ts";
import { ALLOWED_PERMISSIONS, DEFAULT_PERMISSIONS, KEY_PREFIX, type KeyType } from "../shared/permissions.ts";
import type { ApiKeyCreated } from "./events.ts";

/**
 * The permissions a key of `keyType` gets: the type's defaults when none are given, otherwise the
 * given ones (deduplicated, in catalogue order) after checking each is allowed for the type.
 * @throws DomainError invalid naming the first permission the type cannot hold
 */
export function resolvePermissions(keyType: KeyType, requested: readonly string[] | undefined): string[] {
  if (requested === undefined) return [...DEFAULT_PERMISSIONS[keyType]];
  const allowed = ALLOWED_PERMISSIONS[keyType];
  const unknown = requested.find((permission) => !allowed.includes(permission));
  if (unknown !== undefined) {
    throw invalid(`permissions: ${unknown} is not a permission of ${keyType} keys (allowed: ${allowed.join(", ")})`);
  }
  if (requested.length === 0) throw invalid("permissions: must name at least one permission");
  return allowed.filter((permission) => requested.includes(permission));
}

export type NewKey = {
  keyType: KeyType;
  teamId: string;
  appId: string | null;
  name: string;
  permissions: string[];
  createdBy: string | null;
  expiresAt: string | null;
};

/** A new key with a fresh id and a secret carrying its type's prefix. */
export function keyCreated(input: NewKey): ApiKeyCreated {
  return {
    type: "ApiKeyCreated",
    v: 1,
    key_id: newId(),
    team_id: input.teamId,
    app_id: input.appId,
    key_type: input.keyType,
    name: input.name,
    secret: `${KEY_PREFIX[input.keyType]}${randomToken(24)}`,
    permissions: input.permissions,
    created_by: input.createdBy,
    expires_at: input.expiresAt,
  };
}

/** The client key generated with every app (its `client_secret`). */
export const clientKeyCreated = (input: { teamId: string; appId: string; createdBy: string | null }) =>
  keyCreated({ ...input, keyType: "client", name: "Client key", permissions: [...DEFAULT_PERMISSIONS.client], expiresAt: null });
