import type { UserPropertiesChanged } from "../../../domain/identity/events.ts";
import { applyPatch, effectivePatch, isEmptyPatch, MAX_PROPERTIES, type Properties, type PropertyPatch } from "../../../domain/identity/properties.ts";
import { invalid } from "../../../domain/shared/errors.ts";
import { claimerOf, recordOf, wasSuperseded } from "../../../projections/app-users/records.ts";
import type { ApiDeps } from "../deps.ts";
import { appendIdentityFact, decideOnSubject, factHeader } from "./append.ts";
import type { IdentityCaller } from "./caller.ts";

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
  const locate = async () => {
    const target = (await claimerOf(deps.pool, projectId, userId)) ?? userId;
    return { target, subject: deps.log.names.identitySubject(projectId, target) };
  };
  return decideOnSubject(deps, locate, async ({ target, subject }, version): Promise<Properties | null> => {
    // Claimed between the two reads: decide on the claimer instead.
    if (target === userId && (await claimerOf(deps.pool, projectId, userId)) !== null) return null;
    const record = await recordOf(deps.pool, projectId, target);
    const current = record?.properties ?? {};
    const change = effectivePatch(current, patch);
    const next = applyPatch(current, change);
    if (Object.keys(next).length > MAX_PROPERTIES) {
      throw invalid(`properties: a user may hold at most ${MAX_PROPERTIES} properties (this change would leave ${Object.keys(next).length})`);
    }
    if (isEmptyPatch(change)) return next;
    const fact: UserPropertiesChanged = {
      type: "UserPropertiesChanged",
      ...factHeader(caller),
      user_id: target,
      set: change.set,
      unset: change.unset,
      source,
      merged_at_seq: record?.merged_at_seq ?? 0,
    };
    const seq = await appendIdentityFact(deps, subject, version, fact, ["app_users"]);
    if (seq === null || (await wasSuperseded(deps.pool, fact.id))) return null;
    return next;
  });
}
