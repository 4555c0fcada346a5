import { describe, expect, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { IdentityFact, UserClaimed, UserPropertiesChanged } from "./events.ts";
import { identityDecider, type FactOrigin, type IdentityCommand } from "./decider.ts";
import { readPropertyPatch } from "./properties.ts";

const origin: FactOrigin = {
  factId: "0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
  teamId: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
  projectId: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
  appId: "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
  at: "2026-11-25T12:00:00.000Z",
};
const header = { v: 1 as const, id: origin.factId, team_id: origin.teamId, project_id: origin.projectId, app_id: origin.appId, at: origin.at };
const APP_IDS = [origin.appId, "3c4d5e6f-7a8b-4c9d-8e0f-2a3b4c5d6e7f"];

const claimed = (userId: string): UserClaimed => ({ type: "UserClaimed", ...header, app_ids: APP_IDS, anonymous_id: "svc_anon_1", user_id: userId });
const changed = (set: Record<string, string>, unset: string[] = [], fields: Partial<UserPropertiesChanged> = {}): UserPropertiesChanged => ({
  type: "UserPropertiesChanged",
  ...header,
  user_id: "user-1",
  set,
  unset,
  source: "api",
  merged_at_seq: 0,
  ...fields,
});

const claim = (userId: string, strays: number): IdentityCommand => ({ type: "ClaimUser", origin, anonymousId: "svc_anon_1", userId, appIds: APP_IDS, strays });
const change = (properties: unknown, source: "api" | "attribution" = "api"): IdentityCommand => ({
  type: "ChangeUserProperties",
  origin,
  userId: "user-1",
  patch: readPropertyPatch(properties),
  source,
});
const numbered = (count: number, prefix = "p") => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, String(i)]));

const user = given(identityDecider);

describe("identity decider: claims", () => {
  it("records the first claim of an anonymous id with the project's apps", () => {
    user().when(claim("user-1", 3)).then(claimed("user-1"));
    user().when(claim("user-1", 0)).then(claimed("user-1"));
  });

  it("refuses a claim of an anonymous id another user already claimed as a conflict", () => {
    const error = user(claimed("user-1")).when(claim("user-2", 5)).thenFails("conflict");
    expect(error.message).toBe("anonymous_id was already claimed by another user");
  });

  it("records nothing when the claimer repeats the claim and no event is left to move", () => {
    user(claimed("user-1")).when(claim("user-1", 0)).then();
  });

  it("records a repeated claim again while stray events still carry the anonymous id, to sweep them", () => {
    user(claimed("user-1")).when(claim("user-1", 2)).then(claimed("user-1"));
  });
});

describe("identity decider: properties", () => {
  it("records a merge with its source and the merge mark the decision saw", () => {
    user().when(change({ plan: "pro" }, "attribution")).then(changed({ plan: "pro" }, [], { source: "attribution" }));
    const decided = identityDecider.decide({ claimer: null, properties: {}, mergedAtSeq: 42 }, change({ plan: "pro" }));
    expect(decided).toEqual([changed({ plan: "pro" }, [], { merged_at_seq: 42 })]);
  });

  it("deletes keys sent as empty strings, and only keys the user holds", () => {
    user(changed({ a: "1", b: "2" }))
      .when(change({ b: "", c: "3", missing: "" }))
      .then(changed({ c: "3" }, ["b"]));
  });

  it("records nothing for a patch that changes no value", () => {
    user(changed({ a: "1", b: "2" })).when(change({ a: "1", missing: "" })).then();
    user().when(change({})).then();
  });

  it("refuses a change that would leave more than 50 properties, counted after the merge", () => {
    const error = user(changed(numbered(49))).when(change({ one: "x", two: "y" })).thenFails("invalid");
    expect(error.message).toBe("properties: a user may hold at most 50 properties (this change would leave 51)");
    user(changed(numbered(49))).when(change({ one: "x" })).then(changed({ one: "x" }));
    user(changed(numbered(50))).when(change({ p0: "", one: "x" })).then(changed({ one: "x" }, ["p0"]));
    // Values the user already holds do not count twice.
    user(changed(numbered(50))).when(change({ p0: "0" })).then();
  });

  it("folds only the changes the read model applies: none after a claim or across a merge", () => {
    const afterClaim: IdentityFact[] = [changed({ a: "1" }), claimed("user-2"), changed({ b: "2" })];
    expect(afterClaim.reduce(identityDecider.evolve, identityDecider.initialState)).toEqual({ claimer: "user-2", properties: {}, mergedAtSeq: 0 });
    expect(identityDecider.evolve({ claimer: null, properties: { a: "1" }, mergedAtSeq: 7 }, changed({ b: "2" }))).toEqual({
      claimer: null,
      properties: { a: "1" },
      mergedAtSeq: 7,
    });
  });
});

describe("identity decider: revenue", () => {
  const synced = (cents: number, syncedAt: string): IdentityFact => ({ type: "UserRevenueSynced", ...header, user_id: "user-1", lifetime_revenue_usd_cents: cents, synced_at: syncedAt });
  const sync = (mode: "set" | "add", cents: number, syncedAt: string): IdentityCommand => ({ type: "SyncUserRevenue", origin, userId: "user-1", mode, cents, syncedAt });
  const T1 = "2026-11-25T10:00:00.000Z";
  const T2 = "2026-11-25T11:00:00.000Z";

  it("sets the provider's figure, and adds a webhook's amount to the recorded one, never below 0", () => {
    user().when(sync("set", 1200, T1)).then(synced(1200, T1));
    user(synced(1200, T1)).when(sync("add", 999, T2)).then(synced(2199, T2));
    user(synced(1200, T1)).when(sync("add", -5000, T2)).then(synced(0, T2));
    user(synced(1200, T1)).when(sync("set", 1200, T2)).then(synced(1200, T2));
  });

  it("changes nothing for a figure no newer than the recorded one: a redelivery or a late webhook", () => {
    user(synced(1200, T2)).when(sync("add", 999, T2)).then();
    user(synced(1200, T2)).when(sync("add", 999, T1)).then();
    user(synced(1200, T2)).when(sync("set", 50, T1)).then();
  });
});
