import type { Decider } from "../shared/decider.ts";
import { conflict, invalid } from "../shared/errors.ts";
import type { IdentityFact, UserClaimed, UserPropertiesChanged, UserRevenueSynced } from "./events.ts";
import { applyPatch, effectivePatch, isEmptyPatch, MAX_PROPERTIES, type Properties, type PropertyPatch } from "./properties.ts";

/**
 * One app user of a project, as the decisions on its identity subject read it: who claimed it
 * (anonymous ids only), its properties and its merge mark (the sequence of the last claim that
 * merged another record into it; claims move it from other subjects, so no fact of this subject
 * does), and its lifetime revenue (absent: none recorded).
 */
export type IdentityState = { claimer: string | null; properties: Properties; mergedAtSeq: number; revenue?: UserRevenue };

/** The last revenue figure recorded for a user and the time it holds for. */
export type UserRevenue = { cents: number; syncedAt: string | null };

/** Where a fact comes from and when: its new id, the caller's team, project and app, and the time. */
export type FactOrigin = { factId: string; teamId: string; projectId: string; appId: string; at: string };

export type IdentityCommand =
  | {
      type: "ClaimUser";
      origin: FactOrigin;
      anonymousId: string;
      userId: string;
      /** Every app of the project, deleted ones included: the read models move rows through them. */
      appIds: string[];
      /** Events the read model still holds under the anonymous id. */
      strays: number;
    }
  | { type: "ChangeUserProperties"; origin: FactOrigin; userId: string; patch: PropertyPatch; source: UserPropertiesChanged["source"] }
  | {
      type: "SyncUserRevenue";
      origin: FactOrigin;
      userId: string;
      /** `set`: the provider's lifetime figure; `add`: one transaction's amount (a webhook event, negative for a refund). */
      mode: "set" | "add";
      cents: number;
      /** When the figure holds: the sync's time, or the webhook event's. */
      syncedAt: string;
    };

const header = (origin: FactOrigin) => ({
  v: 1 as const,
  id: origin.factId,
  team_id: origin.teamId,
  project_id: origin.projectId,
  app_id: origin.appId,
  at: origin.at,
});

/** Whether `userId` may not claim the anonymous id of `state`: someone else already did. */
export const claimedByAnother = (state: IdentityState, userId: string): boolean => state.claimer !== null && state.claimer !== userId;

/**
 * A claim is appended on the anonymous id's subject, so claims of one id are serialized and the
 * log holds only valid ones. A claim already made is not recorded again unless events still carry
 * the anonymous id (sent through another API instance in the moment of the claim): the repeated
 * fact sweeps them.
 */
function claim(state: IdentityState, command: Extract<IdentityCommand, { type: "ClaimUser" }>): IdentityFact[] {
  if (claimedByAnother(state, command.userId)) throw conflict("anonymous_id was already claimed by another user");
  if (state.claimer === command.userId && command.strays === 0) return [];
  const fact: UserClaimed = {
    type: "UserClaimed",
    ...header(command.origin),
    app_ids: [...command.appIds],
    anonymous_id: command.anonymousId,
    user_id: command.userId,
  };
  return [fact];
}

/**
 * Only the part of the patch that changes something is recorded; nothing changes, no fact. The
 * limit counts the properties after the merge, so a change deleting one key and adding another
 * fits a full record. The fact carries the merge mark the decision saw: the read model applies it
 * only while the mark still holds and the user is not claimed, and the API decides again otherwise.
 */
function changeProperties(state: IdentityState, command: Extract<IdentityCommand, { type: "ChangeUserProperties" }>): IdentityFact[] {
  const change = effectivePatch(state.properties, command.patch);
  const count = Object.keys(applyPatch(state.properties, change)).length;
  if (count > MAX_PROPERTIES) {
    throw invalid(`properties: a user may hold at most ${MAX_PROPERTIES} properties (this change would leave ${count})`);
  }
  if (isEmptyPatch(change)) return [];
  const fact: UserPropertiesChanged = {
    type: "UserPropertiesChanged",
    ...header(command.origin),
    user_id: command.userId,
    set: change.set,
    unset: change.unset,
    source: command.source,
    merged_at_seq: state.mergedAtSeq,
  };
  return [fact];
}

/**
 * A figure older than the one recorded changes nothing: the recorded one already includes it
 * (a sync reads the provider's whole history) or it is the same delivery again (a webhook's time
 * is its event's), which makes redeliveries harmless. An addition never takes the total below 0.
 */
function syncRevenue(state: IdentityState, command: Extract<IdentityCommand, { type: "SyncUserRevenue" }>): IdentityFact[] {
  const recorded = state.revenue ?? { cents: 0, syncedAt: null };
  if (recorded.syncedAt !== null && command.syncedAt <= recorded.syncedAt) return [];
  const cents = Math.max(0, command.mode === "set" ? command.cents : recorded.cents + command.cents);
  const fact: UserRevenueSynced = {
    type: "UserRevenueSynced",
    ...header(command.origin),
    user_id: command.userId,
    lifetime_revenue_usd_cents: cents,
    synced_at: command.syncedAt,
  };
  return [fact];
}

function decide(state: IdentityState, command: IdentityCommand): IdentityFact[] {
  switch (command.type) {
    case "ClaimUser":
      return claim(state, command);
    case "ChangeUserProperties":
      return changeProperties(state, command);
    case "SyncUserRevenue":
      return syncRevenue(state, command);
  }
}

/** Folds a fact of this user's subject the way the app_users read model applies it. */
function evolve(state: IdentityState, fact: IdentityFact): IdentityState {
  switch (fact.type) {
    case "UserClaimed":
      // The anonymous record is merged into the claimer or renamed to it: none is left here.
      return { claimer: fact.user_id, properties: {}, mergedAtSeq: 0 };
    case "UserPropertiesChanged":
      // Decided before a claim of this user or a merge into it: superseded, not applied.
      if (state.claimer !== null || fact.merged_at_seq !== state.mergedAtSeq) return state;
      return { ...state, properties: applyPatch(state.properties, fact) };
    case "UserRevenueSynced":
      if (state.claimer !== null) return state;
      return { ...state, revenue: { cents: fact.lifetime_revenue_usd_cents, syncedAt: fact.synced_at } };
    default:
      return state;
  }
}

/** An app user's claims and properties: claims serialized per anonymous id, at most 50 properties, race-safe merges. */
export const identityDecider: Decider<IdentityState, IdentityCommand, IdentityFact> = {
  initialState: { claimer: null, properties: {}, mergedAtSeq: 0 },
  decide,
  evolve,
};
