import { newId, randomToken } from "../shared/ids.ts";
import type { KeyType } from "../shared/permissions.ts";
import { keyCreatedFact, keySecret } from "./decider.ts";
import type { ApiKeyCreated } from "./events.ts";

/**
 * A key creation fact built outside the keys decider, with a fresh id and secret and the
 * permissions as given: for appending a fact directly (test/integration/projects-apps.int.test.ts
 * appends an already-expired key this way). Commands decide through `keysDecider` (./decider.ts).
 */
export function keyCreated(input: {
  keyType: KeyType;
  teamId: string;
  appId: string | null;
  name: string;
  permissions: string[];
  createdBy: string | null;
  expiresAt: string | null;
}): ApiKeyCreated {
  const { teamId, permissions, ...key } = input;
  return keyCreatedFact(teamId, { ...key, keyId: newId(), secret: keySecret(input.keyType, randomToken(24)) }, permissions);
}
