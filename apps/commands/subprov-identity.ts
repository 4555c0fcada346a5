import { identityDecider, type FactOrigin } from "../../domain/identity/decider.ts";
import { readPropertyPatch, type Properties } from "../../domain/identity/properties.ts";
import { derivedId, newId } from "../../domain/shared/ids.ts";
import { linkedAppOf } from "../../projections/app-users/subprov-queries.ts";
import { claimerOf, identityStateOf } from "../../projections/app-users/records.ts";
import { handleCommand } from "./command-handler.ts";
import type { CommandDeps } from "./deps.ts";

/** What the subscription provider says about one user: `sp_*` properties (an empty value removes a key) and revenue. */
export type SubprovChange = {
  properties: Properties;
  revenue: { mode: "set" | "add"; cents: number; syncedAt: string } | null;
};

/** The user, and for a user the facts may create, when they were first seen (the provider's first sight for a backfilled customer; now otherwise). */
export type SubprovTarget = { teamId: string; projectId: string; userId: string; firstSeenAt?: string };

/** The user's properties after the change, and whether anything changed. */
export type SubprovWrite = { updated: boolean; properties: Properties };

/**
 * Writes a provider's view of a user as identity facts on the user's subject (a claimed id stands
 * for its claimer, as every identity write): one `UserPropertiesChanged` with source `subprov`,
 * then one `UserRevenueSynced`, each only when it changes something. `seed` names the delivery
 * the change comes from (a webhook event): fact ids are derived from it, the user and the merge
 * mark the decision saw, so the same delivery appended twice is one message (the stream's dedup)
 * while a fact superseded by a claim is followed by one with a new id. Returns null when the
 * project has no app to link the facts to (it then has no users either).
 * @throws DomainError unavailable after too many lost races or when the read model lags
 */
export async function writeSubprovChange(deps: CommandDeps, target: SubprovTarget, change: SubprovChange, seed?: string): Promise<SubprovWrite | null> {
  const { projectId, teamId, userId } = target;
  const appId = await linkedAppOf(deps.pool, projectId, userId);
  if (appId === null) return null;
  const patch = readPropertyPatch(change.properties);
  const locate = async () => (await claimerOf(deps.pool, projectId, userId)) ?? userId;
  const origin = (kind: string, user: string, mark: number): FactOrigin => ({
    factId: seed === undefined ? newId() : derivedId(`${seed}:${kind}:${user}:${mark}`),
    teamId,
    projectId,
    appId,
    at: target.firstSeenAt ?? new Date().toISOString(),
  });
  const changed = await handleCommand(deps, {
    aggregate: { type: "identity", projectId, locate },
    decider: identityDecider,
    load: (user) => identityStateOf(deps.pool, projectId, user),
    command: (state, user) => ({ type: "ChangeUserProperties" as const, origin: origin("properties", user, state.mergedAtSeq), userId: user, patch, source: "subprov" as const }),
  });
  let updated = changed.facts.length > 0;
  const { revenue } = change;
  if (revenue !== null) {
    const synced = await handleCommand(deps, {
      aggregate: { type: "identity", projectId, locate },
      decider: identityDecider,
      load: (user) => identityStateOf(deps.pool, projectId, user),
      command: (state, user) => ({
        type: "SyncUserRevenue" as const,
        origin: origin("revenue", user, state.revenue?.cents ?? 0),
        userId: user,
        mode: revenue.mode,
        cents: revenue.cents,
        syncedAt: revenue.syncedAt,
      }),
    });
    // A sync records its time even when the figure is the same (the ads' revenue_synced_at); only a new figure is an update.
    updated ||= synced.facts.length > 0 && synced.state.revenue?.cents !== (changed.state.revenue?.cents ?? 0);
  }
  return { updated, properties: changed.state.properties };
}
