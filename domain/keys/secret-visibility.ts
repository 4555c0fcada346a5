import { KEY_PREFIX, type KeyType } from "../shared/permissions.ts";
import { atLeast, type Role } from "../shared/roles.ts";

/** What the rule needs to know about a key. */
export type KeySecret = { keyType: KeyType; createdBy: string | null; secret: string };

/** Who is looking: a user and their role in the key's team (null when they are not in it). */
export type SecretViewer = { userId: string; role: Role | null };

/**
 * Stands for the hidden part of a masked secret. Never part of a real secret (base64url has no
 * dots), and plain ASCII so a masked secret pasted into a header, a terminal or a CSV file stays
 * intact and is refused as an unknown key rather than breaking the client.
 */
export const MASK = "...";
const SHOWN_TAIL = 4;

/**
 * Whether `viewer` may read the full secret of `key`. Admins and owners read every key of their
 * team; members read client keys (they ship inside apps anyway) and keys they created themselves.
 * Everything else would let a member act with more rights than their role gives them.
 */
export function maySeeSecret(key: KeySecret, viewer: SecretViewer): boolean {
  if (viewer.role === null) return false;
  if (atLeast(viewer.role, "admin")) return true;
  return key.keyType === "client" || (key.createdBy !== null && key.createdBy === viewer.userId);
}

/**
 * A secret reduced to its type prefix and last four characters, `svc_agent_...x7Qa`: enough to tell
 * keys apart in a list and to match one against a secret someone holds, useless as a credential.
 */
export function maskSecret(key: Pick<KeySecret, "keyType" | "secret">): string {
  const prefix = KEY_PREFIX[key.keyType];
  const shownPrefix = key.secret.startsWith(prefix) ? prefix : "";
  const rest = key.secret.slice(shownPrefix.length);
  // A secret too short to keep anything hidden shows nothing after the mask.
  const tail = rest.length > SHOWN_TAIL * 2 ? rest.slice(-SHOWN_TAIL) : "";
  return `${shownPrefix}${MASK}${tail}`;
}

/** The secret as `viewer` may see it: the full secret or its masked form. Throws nothing. */
export function visibleSecret(key: KeySecret, viewer: SecretViewer): string {
  return maySeeSecret(key, viewer) ? key.secret : maskSecret(key);
}
