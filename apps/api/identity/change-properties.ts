import { identityDecider } from "../../../domain/identity/decider.ts";
import type { UserPropertiesChanged } from "../../../domain/identity/events.ts";
import type { Properties, PropertyPatch } from "../../../domain/identity/properties.ts";
import { claimerOf, identityStateOf } from "../../../projections/app-users/records.ts";
import { handleCommand } from "../../commands/command-handler.ts";
import type { ApiDeps } from "../deps.ts";
import { originOf, type IdentityCaller } from "./caller.ts";

/**
 * Merges `patch` into a user's properties and returns the full object after the merge. A claimed
 * anonymous id stands for its claimer. The decision is race-safe: the version of the user's
 * subject is read before the user, the fact is appended expecting that version, and a fact the
 * read model superseded (a claim merged into the user meanwhile) is decided again.
 * @throws DomainError invalid when the result would hold more than 50 properties
 */
export async function changeProperties(
  deps: ApiDeps,
  caller: IdentityCaller,
  userId: string,
  patch: PropertyPatch,
  source: UserPropertiesChanged["source"],
): Promise<Properties> {
  const { projectId } = caller;
  const { state } = await handleCommand(deps, {
    aggregate: { type: "identity", projectId, locate: async () => (await claimerOf(deps.pool, projectId, userId)) ?? userId },
    decider: identityDecider,
    load: (target) => identityStateOf(deps.pool, projectId, target),
    command: (_, target) => ({ type: "ChangeUserProperties" as const, origin: originOf(caller), userId: target, patch, source }),
  });
  return state.properties;
}
